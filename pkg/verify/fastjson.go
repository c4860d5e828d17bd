package verify

import "strconv"

// decodeFast decodes the common flat event lines (producer_send_success,
// record_data, startup_complete, ...: string, integer and null fields,
// no escapes, no nesting, ASCII only) without reflection. It reports
// false for anything else (then encoding/json decides), and where it
// reports true the result equals encoding/json's.
func decodeFast(line []byte, e *Event) bool {
	i, n := 0, len(line)
	if n < 2 || line[0] != '{' || line[n-1] != '}' {
		return false
	}
	i = 1
	*e = Event{}
	for {
		// key
		if i >= n || line[i] != '"' {
			return false
		}
		j := i + 1
		for j < n && line[j] != '"' {
			if line[j] == '\\' || line[j] < 0x20 || line[j] >= 0x80 {
				return false
			}
			j++
		}
		if j+1 >= n || line[j+1] != ':' {
			return false
		}
		key := line[i+1 : j]
		i = j + 2
		if i >= n {
			return false
		}
		// value
		switch c := line[i]; {
		case c == '"':
			j = i + 1
			for j < n && line[j] != '"' {
				if line[j] == '\\' || line[j] < 0x20 || line[j] >= 0x80 {
					return false
				}
				j++
			}
			if j >= n {
				return false
			}
			s := string(line[i+1 : j])
			i = j + 1
			switch string(key) {
			case "name":
				e.Name = s
			case "key":
				e.Key = &s
			case "value":
				e.Value = &s
			case "topic":
				e.Topic = s
			case "exception":
				e.Exception = s
			case "message":
				e.Message = &s
			case "error":
				e.Error = &s
			case "result":
				e.Result = s
			default:
				return false
			}
		case c == 'n':
			if i+4 > n || string(line[i:i+4]) != "null" {
				return false
			}
			i += 4
			switch string(key) {
			case "key":
				e.Key = nil
			case "value":
				e.Value = nil
			case "message":
				e.Message = nil
			case "error":
				e.Error = nil
			default:
				return false
			}
		case c == '-' || (c >= '0' && c <= '9'):
			j = i + 1
			for j < n && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if c == '-' && j == i+1 || (line[i] == '0' && j > i+1) || (c == '-' && j > i+2 && line[i+1] == '0') {
				return false
			}
			v, err := strconv.ParseInt(string(line[i:j]), 10, 64)
			if err != nil {
				return false
			}
			i = j
			switch string(key) {
			case "timestamp":
				e.Timestamp = v
			case "offset":
				e.Offset = v
			case "count":
				e.Count = v
			case "sent":
				e.Sent = v
			case "acked":
				e.Acked = v
			case "partition":
				if v != int64(int32(v)) {
					return false
				}
				e.Partition = int32(v)
			default:
				return false
			}
		default:
			return false
		}
		if i >= n {
			return false
		}
		switch line[i] {
		case ',':
			i++
		case '}':
			return i == n-1
		default:
			return false
		}
	}
}
