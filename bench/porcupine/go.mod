module duet/bench/porcupine

go 1.19

require github.com/anishathalye/porcupine v0.0.0

// compare.sh points this at a Porcupine checkout (go mod edit -replace) in its own copy.
replace github.com/anishathalye/porcupine => ../../../porcupine
