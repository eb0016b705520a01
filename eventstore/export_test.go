package eventstore

// DecodeCommon exposes decodeCommon to the tests of package eventstore_test.
var DecodeCommon = decodeCommon
