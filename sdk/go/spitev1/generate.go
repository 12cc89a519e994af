// Package spitev1 is the generated Go code of the Spite Arena wire contract,
// proto/spite/v1 (game.proto and referee.proto): the messages and the Referee
// service's client and server.
//
// Bots rarely need it: package spite converts every message into plain Go values.
// The code is committed so that building a bot needs only the Go toolchain; after a
// change to the .proto files, regenerate it (the freshness test fails until then):
//
//	go generate ./spitev1
package spitev1

//go:generate go -C ../tools run ./genproto -proto ../../../proto -out ..
