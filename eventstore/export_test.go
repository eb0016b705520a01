package eventstore

// DecodeCommon exposes decodeCommon to the tests of package eventstore_test.
var DecodeCommon = decodeCommon

// EncodeCommon exposes encodeCommon to the tests of package eventstore_test.
var EncodeCommon = encodeCommon

// AppendFloat exposes appendFloat to the tests of package eventstore_test.
var AppendFloat = appendFloat
