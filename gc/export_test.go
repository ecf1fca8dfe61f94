package gc

// RunFullScan is Run evaluating every object in every round (no change tracking).
func RunFullScan(objs []Object, opts Options) (Result, error) {
	s, err := newState(objs, opts)
	if err != nil {
		return Result{}, err
	}
	s.fullScan = true
	return s.run(), nil
}
