package cel_test

import (
	celgo "github.com/google/cel-go/cel"
)

type programT = celgo.Program

func celVar(name string) celgo.EnvOption { return celgo.Variable(name, celgo.StringType) }
