// Package grouptest runs real franz-go consumers with the lagassign balancer
// against a real local Kafka broker (deploy/local-kafka/kafka) and a real
// sidecar (.venv/bin/lagassign serve), both started once by TestMain on
// 127.0.0.1 and stopped by their pids. Fakes stand in for the sidecar only
// where a real one cannot produce the fault on demand (hung, slow, garbage).
package grouptest
