package output

import (
	"fmt"
	"strconv"
	"time"
)

// Bytes is a byte count for people, as every native table prints sizes:
// binary units with one decimal ("512 B", "1.5 KiB", "19.8 MiB",
// "252.0 GiB"). --bytes and the JSON/YAML forms keep the raw number.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit && n > -unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	v := float64(n)
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := -1
	for (v >= unit || v <= -unit) && i < len(units)-1 {
		v /= unit
		i++
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + units[i]
}

// BytesOrRaw is Bytes, or the raw number when raw (--bytes).
func BytesOrRaw(n int64, raw bool) string {
	if raw {
		return strconv.FormatInt(n, 10)
	}
	return Bytes(n)
}

// Duration is a time span for people, to the precision a table reader
// needs: "850ms", "12.3s", "4m05s", "2h03m", "3d04h".
func Duration(d time.Duration) string {
	if d < 0 {
		return "-" + Duration(-d)
	}
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
	}
}
