package host

// Guard is guard, for the black-box tests of what the handler passes on.
var Guard = guard
