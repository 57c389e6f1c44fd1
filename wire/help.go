package wire

// HelpTopics is the answer of GET /v1/help: the topics the server has a
// help text for, sorted. The attention envelope names them (its help
// line, broken_views), and each is read with GET /v1/help/{topic}.
type HelpTopics struct {
	Topics []string `json:"topics"`
}

// Help is the answer of GET /v1/help/{topic}: the topic's text, plain
// text with newlines, the text gqlsh's :help TOPIC prints.
type Help struct {
	Topic string `json:"topic"`
	Text  string `json:"text"`
}
