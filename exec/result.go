package exec

// What a Δ did is values': its CommitResult, each statement's
// StmtResult and their Counts. The executor keeps beside them what only
// it needs: whether the Δ changed any data (executor.changed) and where
// the running statement's first echo is (executor.echoAt).
