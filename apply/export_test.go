package apply

// Test hooks: WouldConflict's shortcut and its full computation, compared by FuzzApply.
var (
	QuickConflicts = quickConflicts
	FullConflicts  = fullConflicts
)
