module github.com/spite-arena/spite/sample_bots/go-greedy

go 1.24.0

require github.com/spite-arena/spite/sdk/go v0.0.0

require (
	golang.org/x/net v0.49.0 // indirect
	golang.org/x/sys v0.40.0 // indirect
	golang.org/x/text v0.33.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260120221211-b8f7ae30c516 // indirect
	google.golang.org/grpc v1.80.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

// The SDK from this repository: a bot elsewhere points this at its checkout of sdk/go.
replace github.com/spite-arena/spite/sdk/go => ../../sdk/go
