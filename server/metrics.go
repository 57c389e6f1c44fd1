package server

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/goldfish-gql/goldfish"
	"github.com/goldfish-gql/goldfish/gqlstatus"
)

// metrics are the server's Prometheus series. Each server has a registry
// of its own, so several servers in one process (tests) do not collide.
// No label holds a session name: names are the tokens' business, and a
// label per session would grow without bound.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
	rows     prometheus.Histogram
	tokens   prometheus.Histogram
	commits  *prometheus.CounterVec
	tools    *prometheus.CounterVec
}

func newMetrics(db *goldfish.DB) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "goldfish_http_requests_total", Help: "HTTP requests answered, by endpoint and status code.",
	}, []string{"endpoint", "code"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "goldfish_http_request_duration_seconds", Help: "Time to answer an HTTP request, by endpoint.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
	}, []string{"endpoint"})
	m.inFlight = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "goldfish_http_in_flight_requests", Help: "HTTP requests being answered.",
	})
	m.rows = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "goldfish_recall_rows", Help: "Rows of the Shapes Recalls answered.",
		Buckets: []float64{0, 1, 2, 5, 10, 20, 50, 100, 200},
	})
	m.tokens = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "goldfish_recall_tokens", Help: "Tokens of the Shapes Recalls answered.",
		Buckets: []float64{50, 100, 250, 500, 1000, 2000, 4000, 8000, 16000},
	})
	m.commits = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "goldfish_commits_total", Help: "Commits answered, by whether they applied.",
	}, []string{"applied"})
	m.tools = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "goldfish_mcp_tool_calls_total", Help: "MCP tool calls, by tool and whether they failed.",
	}, []string{"tool", "error"})
	sessions := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "goldfish_sessions", Help: "Sessions the database holds (not the catalogue).",
	}, func() float64 { return float64(len(db.Sessions())) })
	m.reg.MustRegister(m.requests, m.duration, m.inFlight, m.rows, m.tokens, m.commits, m.tools, sessions, memoryCollector{db},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// memoryCollector reports the database's memory budget (goldfish.
// WithMemoryBudget) from one MemoryStats per scrape.
type memoryCollector struct{ db *goldfish.DB }

var (
	residentSessionsDesc = prometheus.NewDesc("goldfish_resident_sessions",
		"Sessions hydrated in memory now (under a memory budget the others are unloaded).", nil, nil)
	residentBytesDesc = prometheus.NewDesc("goldfish_resident_bytes",
		"Estimated memory of the resident sessions' graphs, in bytes.", nil, nil)
	budgetDesc = prometheus.NewDesc("goldfish_memory_budget_bytes",
		"The memory budget of the resident sessions (0: none).", nil, nil)
	unloadsDesc = prometheus.NewDesc("goldfish_session_unloads_total",
		"Idle sessions unloaded to keep within the memory budget.", nil, nil)
	rehydrationsDesc = prometheus.NewDesc("goldfish_session_rehydrations_total",
		"Unloaded sessions hydrated again by a call.", nil, nil)
)

func (memoryCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{residentSessionsDesc, residentBytesDesc, budgetDesc, unloadsDesc, rehydrationsDesc} {
		ch <- d
	}
}

func (c memoryCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.db.MemoryStats()
	ch <- prometheus.MustNewConstMetric(residentSessionsDesc, prometheus.GaugeValue, float64(st.ResidentSessions))
	ch <- prometheus.MustNewConstMetric(residentBytesDesc, prometheus.GaugeValue, float64(st.ResidentBytes))
	ch <- prometheus.MustNewConstMetric(budgetDesc, prometheus.GaugeValue, float64(st.Budget))
	ch <- prometheus.MustNewConstMetric(unloadsDesc, prometheus.CounterValue, float64(st.Unloads))
	ch <- prometheus.MustNewConstMetric(rehydrationsDesc, prometheus.CounterValue, float64(st.Rehydrations))
}

// instrument counts and times the requests h answers.
func (m *metrics) instrument(endpoint string, h http.Handler) http.Handler {
	return promhttp.InstrumentHandlerInFlight(m.inFlight,
		promhttp.InstrumentHandlerDuration(m.duration.MustCurryWith(prometheus.Labels{"endpoint": endpoint}),
			promhttp.InstrumentHandlerCounter(m.requests.MustCurryWith(prometheus.Labels{"endpoint": endpoint}), h)))
}

// metricsHandler serves the series. Without Options.PrivateMetrics they
// need no token: they are totals (no label holds a session, token or
// agent name), which count every session's traffic. With it, and
// tokens, only a token that may read every session sees them.
func (s *Server) metricsHandler() http.Handler {
	h := promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{Registry: s.metrics.reg})
	if !s.opts.PrivateMetrics || s.opts.Tokens == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scope, err := s.authorize(r)
		if err == nil && !scope.Unrestricted() {
			err = gqlstatus.Errorf(gqlstatus.AccessDenied, "the metrics count the requests and Commits of every session, and this token may read only some").
				WithHint("scrape with a token that may read every session (gqlsh token --read '*')")
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (m *metrics) recalled(sh *goldfish.Shape) {
	m.rows.Observe(float64(sh.Rows))
	m.tokens.Observe(float64(sh.Tokens))
}

func (m *metrics) committed(res *goldfish.CommitResult) {
	m.commits.WithLabelValues(strconv.FormatBool(res.Applied)).Inc()
}

func (m *metrics) tool(name string, failed bool) {
	m.tools.WithLabelValues(name, strconv.FormatBool(failed)).Inc()
}
