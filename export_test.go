package goldfish

import (
	"fmt"

	"github.com/goldfish-gql/goldfish/internal/engine"
	"github.com/goldfish-gql/goldfish/store"
)

// The tests of the facade reach the engine through these.

// HostConflicts returns how many claims of db another host beat.
func HostConflicts(db *DB) int64 { return db.e.HostConflicts() }

// SetBeforeClaim makes db call fn before each claim of a version.
func SetBeforeClaim(db *DB, fn func(session string, attempt int)) { db.e.SetBeforeClaim(fn) }

// SnapshotOf returns the newest durable snapshot of s.
func SnapshotOf(s *Session) *store.Snapshot { return s.e.Snapshot() }

// engineAgrees lists the facade's constants beside the engine's: they
// are written out in the facade so its API names no inner package, and
// TestFacadeAgreesWithEngine holds them equal.
var engineAgrees = []struct {
	name         string
	facade, real any
}{
	{"MaxSessionName", MaxSessionName, engine.MaxSessionName},
	{"MaxAgentName", MaxAgentName, engine.MaxAgentName},
	{"MaxAgents", MaxAgents, engine.MaxAgents},
	{"CatalogName", CatalogName, engine.CatalogName},
	{"SessionLabel", SessionLabel, engine.SessionLabel},
	{"MaxNameScan", MaxNameScan, engine.MaxNameScan},
	{"MaxSliceBytes", MaxSliceBytes, engine.MaxSliceBytes},
	{"MatchCountWork", MatchCountWork, engine.MatchCountWork},
	{"CueTask", string(CueTask), string(engine.CueTask)},
	{"MaxGapWindow", MaxGapWindow, engine.MaxGapWindow},
	{"PastVersions", PastVersions, engine.PastVersions},
	{"DefaultAttentionSettings", DefaultAttentionSettings.in(), engine.DefaultSettings},
	{"HistoryAll", uint64(HistoryAll), uint64(engine.HistoryAll)},
	{"DefaultDiffRows", DefaultDiffRows, engine.DefaultDiffRows},
	{"DefaultHistory", DefaultHistory, engine.DefaultHistory},
	{"AttentionSettingNames", fmt.Sprint(AttentionSettingNames), fmt.Sprint(engine.SettingNames)},
	{"DefaultRecall", [5]int{DefaultRecall.M, DefaultRecall.K, DefaultRecall.L, DefaultRecall.F, DefaultRecall.T},
		[5]int{engine.DefaultRecall.M, engine.DefaultRecall.K, engine.DefaultRecall.L, engine.DefaultRecall.F, engine.DefaultRecall.T}},
	{"DefaultPlanCacheBytes", int64(DefaultPlanCacheBytes), int64(engine.DefaultPlanCacheBytes)},
}

// Agreement is one of engineAgrees.
type Agreement struct {
	Name         string
	Facade, Real any
}

// EngineAgrees lists the facade's constants beside the engine's.
func EngineAgrees() []Agreement {
	out := make([]Agreement, len(engineAgrees))
	for i, a := range engineAgrees {
		out[i] = Agreement{a.name, a.facade, a.real}
	}
	return out
}
