// Times Porcupine on the histories duet-check reads, for bench/porcupine/compare.sh: Jepsen's
// etcd logs (a compare-and-set register that starts empty) and Porcupine's kv logs (get, put
// and append on string keys that start empty, partitioned per key as Porcupine's kv example
// does). Each file is read, parsed and checked `-n` times; the best time is printed:
//
//	FILE<TAB>linearizable|not-linearizable|unknown<TAB>MILLISECONDS
//
// The models are written from the formats' descriptions in tests/data/histories/README.md.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// ---- the etcd register ----

type regOp int

const (
	regRead regOp = iota
	regWrite
	regCas
)

type regInput struct {
	op       regOp
	from, to int // write: to; cas: from -> to
}

type regOutput struct {
	known  bool // false: timed out, any result is possible
	isNil  bool // read: the register was empty
	value  int  // read
	casHit bool // cas: took effect
}

const emptyRegister = -1 << 40

var registerModel = porcupine.Model{
	Init: func() interface{} { return emptyRegister },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		st, in, out := state.(int), input.(regInput), output.(regOutput)
		switch in.op {
		case regRead:
			return !out.known || (out.isNil && st == emptyRegister) || (!out.isNil && st == out.value), st
		case regWrite:
			return true, in.to
		default:
			if st == in.from {
				return !out.known || out.casHit, in.to
			}
			return !out.known || !out.casHit, st
		}
	},
}

var (
	jepsenLine = regexp.MustCompile(`^INFO\s+jepsen\.util\s+-\s+(\d+)\s+:(invoke|ok|fail|info)\s+:(read|write|cas)\s+(.*?)\s*$`)
	pairValue  = regexp.MustCompile(`^\[(\d+)\s+(\d+)\]$`)
)

func parseEtcd(text string) ([]porcupine.Event, error) {
	var events, late []porcupine.Event
	open := map[int]int{} // process -> id of its pending call
	next := 0
	for _, line := range strings.Split(text, "\n") {
		m := jepsenLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		proc, _ := strconv.Atoi(m[1])
		kind, f, v := m[2], m[3], m[4]
		if kind == "invoke" {
			in := regInput{}
			switch f {
			case "read":
				in.op = regRead
			case "write":
				in.op = regWrite
				in.to, _ = strconv.Atoi(v)
			default:
				p := pairValue.FindStringSubmatch(v)
				if p == nil {
					return nil, fmt.Errorf("bad cas value %q", v)
				}
				in.op = regCas
				in.from, _ = strconv.Atoi(p[1])
				in.to, _ = strconv.Atoi(p[2])
			}
			open[proc] = next
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.CallEvent, Value: in, Id: next})
			next++
			continue
		}
		id, ok := open[proc]
		if !ok {
			return nil, fmt.Errorf("a completion with no call: %q", line)
		}
		delete(open, proc)
		out := regOutput{known: true}
		switch {
		case kind == "info", v == ":timed-out":
			out.known = false
		case f == "read":
			out.isNil = v == "nil"
			out.value, _ = strconv.Atoi(v)
		case f == "cas":
			out.casHit = kind == "ok"
		}
		ev := porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: out, Id: id}
		if kind == "info" { // it may take effect at any time after its call: it returns last
			late = append(late, ev)
		} else {
			events = append(events, ev)
		}
	}
	for proc, id := range open { // calls that never completed
		late = append(late, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: regOutput{}, Id: id})
	}
	return append(events, late...), nil
}

// ---- the kv store ----

type kvInput struct {
	op         string // get, put, append
	key, value string
}

var kvModel = porcupine.Model{
	PartitionEvent: func(history []porcupine.Event) [][]porcupine.Event {
		byKey := map[string][]porcupine.Event{}
		keyOf := map[int]string{}
		var order []string
		for _, e := range history {
			if e.Kind == porcupine.CallEvent {
				keyOf[e.Id] = e.Value.(kvInput).key
			}
			k := keyOf[e.Id]
			if _, seen := byKey[k]; !seen {
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], e)
		}
		parts := make([][]porcupine.Event, 0, len(order))
		for _, k := range order {
			parts = append(parts, byKey[k])
		}
		return parts
	},
	Init: func() interface{} { return "" },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		st, in := state.(string), input.(kvInput)
		switch in.op {
		case "get":
			return output.(string) == st, st
		case "put":
			return true, in.value
		default:
			return true, st + in.value
		}
	},
}

var (
	kvField  = regexp.MustCompile(`:(process|type|f|key|value)\s+("(?:[^"\\]|\\.)*"|nil|:[a-z]+|\d+)`)
	kvString = func(s string) string {
		if s == "nil" {
			return ""
		}
		u, err := strconv.Unquote(s)
		if err != nil {
			return s
		}
		return u
	}
)

func parseKv(text string) ([]porcupine.Event, error) {
	var events []porcupine.Event
	open := map[int]int{}
	next := 0
	for _, line := range strings.Split(text, "\n") {
		fields := map[string]string{}
		for _, m := range kvField.FindAllStringSubmatch(line, -1) {
			fields[m[1]] = m[2]
		}
		if len(fields) == 0 {
			continue
		}
		proc, err := strconv.Atoi(fields["process"])
		if err != nil {
			return nil, fmt.Errorf("no process in %q", line)
		}
		switch fields["type"] {
		case ":invoke":
			in := kvInput{op: strings.TrimPrefix(fields["f"], ":"), key: kvString(fields["key"]), value: kvString(fields["value"])}
			open[proc] = next
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.CallEvent, Value: in, Id: next})
			next++
		case ":ok":
			id, ok := open[proc]
			if !ok {
				return nil, fmt.Errorf("a completion with no call: %q", line)
			}
			delete(open, proc)
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: kvString(fields["value"]), Id: id})
		default:
			return nil, fmt.Errorf("an event that is neither :invoke nor :ok: %q", line)
		}
	}
	if len(open) != 0 {
		return nil, fmt.Errorf("%d calls never completed", len(open))
	}
	return events, nil
}

// ---- timing ----

func checkFile(path string, timeout time.Duration) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var events []porcupine.Event
	model := registerModel
	if strings.Contains(string(data), ":process") {
		events, err = parseKv(string(data))
		model = kvModel
	} else {
		events, err = parseEtcd(string(data))
	}
	if err != nil {
		return "", err
	}
	switch porcupine.CheckEventsTimeout(model, events, timeout) {
	case porcupine.Ok:
		return "linearizable", nil
	case porcupine.Illegal:
		return "not-linearizable", nil
	default:
		return "unknown", nil
	}
}

func main() {
	runs := flag.Int("n", 1, "runs per file; the best time is printed")
	timeout := flag.Duration("timeout", 60*time.Second, "per file and run (0: none)")
	flag.Parse()
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	status := 0
	for _, path := range flag.Args() {
		best := time.Duration(1<<63 - 1)
		verdict := ""
		for r := 0; r < *runs; r++ {
			start := time.Now()
			v, err := checkFile(path, *timeout)
			took := time.Since(start)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
				status = 2
				break
			}
			verdict = v
			if took < best {
				best = took
			}
		}
		if verdict != "" {
			fmt.Fprintf(out, "%s\t%s\t%.3f\n", path, verdict, float64(best.Microseconds())/1000)
		}
	}
	out.Flush()
	os.Exit(status)
}
