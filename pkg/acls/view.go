package acls

// List is `kbox acls list`: the bindings, sorted.
type List struct {
	ACLs []Binding `json:"acls"`
}

// Header is the table's header.
func (l *List) Header() []string {
	return []string{"RESOURCE TYPE", "NAME", "PATTERN", "PRINCIPAL", "HOST", "OPERATION", "PERMISSION"}
}

// Rows is one row a binding.
func (l *List) Rows() [][]string {
	out := make([][]string, 0, len(l.ACLs))
	for _, b := range l.ACLs {
		out = append(out, []string{b.ResourceType, b.Name, b.PatternType, b.Principal, b.Host, b.Operation, b.Permission})
	}
	return out
}

// Header is the check's table: the verdict, then one row per deciding ACL.
func (d *Decision) Header() []string {
	return []string{"VERDICT", "REASON", "PERMISSION", "PRINCIPAL", "HOST", "OPERATION", "RESOURCE"}
}

// Rows: the verdict row, then the deciding ACLs.
func (d *Decision) Rows() [][]string {
	out := [][]string{{d.Verdict(), d.Explain(), "", "", "", "", ""}}
	for _, b := range d.Deciding {
		out = append(out, []string{"", "", b.Permission, b.Principal, b.Host, b.Operation, b.ResourceType + ":" + b.Name + " (" + b.PatternType + ")"})
	}
	return out
}

// Header is the diff's table.
func (d *Diff) Header() []string {
	return []string{"CHANGE", "RESOURCE TYPE", "NAME", "PATTERN", "PRINCIPAL", "HOST", "OPERATION", "PERMISSION"}
}

// Rows: removals (-), then additions (+).
func (d *Diff) Rows() [][]string {
	var out [][]string
	for _, b := range d.Remove {
		out = append(out, []string{"-", b.ResourceType, b.Name, b.PatternType, b.Principal, b.Host, b.Operation, b.Permission})
	}
	for _, b := range d.Add {
		out = append(out, []string{"+", b.ResourceType, b.Name, b.PatternType, b.Principal, b.Host, b.Operation, b.Permission})
	}
	return out
}
