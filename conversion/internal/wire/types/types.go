package types

// UID is a uid as the apiserver's types name it.
type UID string
