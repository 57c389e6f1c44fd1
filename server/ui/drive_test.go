package ui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/goldfish-gql/goldfish/client"
	"github.com/goldfish-gql/goldfish/server"
)

// driver is a headless Chromium on one tab, and what the tab said: its
// console, its exceptions and log entries (a CSP refusal is one), and
// the bytes of each asset of the page it loaded.
type driver struct {
	t   *testing.T
	ctx context.Context

	mu      sync.Mutex
	console []string
	sizes   map[string]float64
}

// drive starts Chromium (the test's 60 s run starts once it is up) and
// makes every page it opens note its CSP violations in
// window.cspViolations.
func drive(t *testing.T) *driver {
	t.Helper()
	chrome := browser(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chrome), chromedp.NoSandbox,
		chromedp.Headless, chromedp.DisableGPU, chromedp.WindowSize(1400, 1000))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelA)
	d := &driver{t: t, sizes: map[string]float64{}}
	urls := map[network.RequestID]string{}
	listen := func(ev any) {
		d.mu.Lock()
		defer d.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value))
			}
			d.console = append(d.console, string(e.Type)+": "+strings.Join(args, " "))
		case *runtime.EventExceptionThrown:
			d.console = append(d.console, "exception: "+(&chromedp.ExceptionError{ExceptionDetails: e.ExceptionDetails}).Error())
		case *log.EventEntryAdded:
			// A request that failed (a 4xx answer, a server that is gone)
			// is logged by the browser itself, whatever the page does with
			// it: the page says it in words, which the tests read.
			if e.Entry.Source == log.EntrySourceNetwork {
				return
			}
			if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
				d.console = append(d.console, "log "+string(e.Entry.Level)+": "+e.Entry.Text)
			}
		case *network.EventResponseReceived:
			urls[e.RequestID] = e.Response.URL
		case *network.EventLoadingFinished:
			if u := urls[e.RequestID]; strings.Contains(u, "/ui/") {
				d.sizes[u] = e.EncodedDataLength
			}
		}
	}
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(listen))
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // start the browser before any deadline
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `window.cspViolations = [];
		document.addEventListener("securitypolicyviolation", e => window.cspViolations.push(e.violatedDirective + " " + e.blockedURI));`}); err != nil {
		t.Fatal(err)
	}
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelT)
	d.ctx = ctx
	return d
}

// run does actions, failing the test on an error.
func (d *driver) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	d.t.Helper()
	if err := chromedp.Do(d.ctx, actions...); err != nil {
		d.t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates js into v.
func (d *driver) eval(what, js string, v any) {
	d.t.Helper()
	raw, err := chromedp.Run(d.ctx, chromedp.Evaluate[json.RawMessage](js))
	if err == nil {
		err = json.Unmarshal(raw, v)
	}
	if err != nil {
		d.t.Fatalf("%s: %v", what, err)
	}
}

// count is the number of elements sel selects.
func (d *driver) count(sel string) int {
	var n int
	d.eval("count "+sel, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel), &n)
	return n
}

// waitTrue waits up to 10 s for js to be true, and fails with the page's
// text when it is not.
func (d *driver) waitTrue(what, js string) {
	d.t.Helper()
	if err := chromedp.Do(d.ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		var text string
		d.eval("the page's text", `location.href + "\n" + JSON.stringify(window.goldfishDraw) + "\n" + document.body.innerText`, &text)
		d.t.Fatalf("%s: %v; the page says:\n%s", what, err, text)
	}
}

// center is the middle of the first element sel selects, in the page.
func (d *driver) center(sel string) (x, y float64) {
	d.t.Helper()
	var p struct{ X, Y float64 }
	d.eval("center of "+sel, fmt.Sprintf(`(function () { var r = document.querySelector(%q).getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()`, sel), &p)
	return p.X, p.Y
}

// markCenter is the middle of a drawn node's mark (its label aside).
func (d *driver) markCenter(sel string) (x, y float64) {
	return d.center(sel + " > :is(circle, rect, polygon):not(.ring)")
}

// drag presses the left button at (x, y), moves by (dx, dy) in steps and
// releases it.
func (d *driver) drag(x, y, dx, dy float64) {
	d.t.Helper()
	acts := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(chromedp.MousePressed, x, y, chromedp.ButtonLeft, chromedp.ClickCount(1))}
	for i := 1; i <= 8; i++ {
		f := float64(i) / 8
		acts = append(acts, chromedp.MouseEvent(chromedp.MouseMoved, x+dx*f, y+dy*f, chromedp.ButtonLeft))
	}
	acts = append(acts, chromedp.MouseEvent(chromedp.MouseReleased, x+dx, y+dy, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	d.run("drag", acts...)
}

// wheel turns the mouse wheel by dy over (x, y).
func (d *driver) wheel(x, y, dy float64) {
	d.t.Helper()
	// deltaX must be sent, and the protocol's types leave a zero out.
	d.run("wheel", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseWheel, x, y, func(p *input.DispatchMouseEventParams) { p.DeltaX, p.DeltaY = 0.001, dy }))
}

// said is what the page wrote to its console or log, and the CSP
// violations it noted, so far.
func (d *driver) said() []string {
	var csp []string
	d.eval("CSP violations", `window.cspViolations || []`, &csp)
	d.mu.Lock()
	defer d.mu.Unlock()
	out := append([]string(nil), d.console...)
	for _, v := range csp {
		out = append(out, "CSP violation: "+v)
	}
	return out
}

// loaded is the bytes the page's assets took over the wire, and how many.
func (d *driver) loaded() (float64, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	total := 0.0
	for _, n := range d.sizes {
		total += n
	}
	return total, len(d.sizes)
}

// screenshot writes the page as a PNG to path.
func (d *driver) screenshot(path string) {
	d.t.Helper()
	d.run("settle", chromedp.Sleep(300*time.Millisecond))
	png, err := chromedp.Run(d.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		d.t.Fatal(err)
	}
	if err := writeFile(path, png); err != nil {
		d.t.Fatal(err)
	}
}

// servedWithToken skips without a Chromium, then runs gqlsh serve with a
// token that may read and write every session, and a client holding it;
// the test stops both at its end.
func servedWithToken(t *testing.T) (served, *client.Client, string) {
	t.Helper()
	browser(t)
	token, line, err := server.NewToken([]string{"*"}, []string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	ts := serve(t, line)
	c, err := client.New(ts.URL, client.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return ts, c, token
}
