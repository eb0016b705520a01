package consumer

import "github.com/google/uuid"

func eventstoreID(n byte) uuid.UUID { return uuid.UUID{15: n} }
