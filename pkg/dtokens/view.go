package dtokens

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/javafmt"
)

// dateFormat is the tool's SimpleDateFormat, in the local time zone (the
// JVM's default).
var dateFormat, _ = javafmt.CompileDateFormat("yyyy-MM-dd'T'HH:mm")

// JavaDate is a time as the tool prints it: 2026-12-02T17:22, local time.
func JavaDate(t time.Time) string { return dateFormat.Format(t.Local()) }

// javaList is AbstractCollection.toString: [a, b].
func javaList[T fmt.Stringer](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = x.String()
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// CreateCall is the line --create prints before its request.
func CreateCall(renewers []Principal, maxLifetimeMs int64) string {
	return fmt.Sprintf("Calling create token operation with renewers :%s , max-life-time-period :%d\n", javaList(renewers), maxLifetimeMs)
}

// RenewCall is the line --renew prints before its request: the HMAC as
// given ("null" when --hmac has no value).
func RenewCall(hmac string, periodMs int64) string {
	return fmt.Sprintf("Calling renew token operation with hmac :%s , renew-time-period :%d\n", hmac, periodMs)
}

// ExpireCall is the line --expire prints before its request.
func ExpireCall(hmac string, periodMs int64) string {
	return fmt.Sprintf("Calling expire token operation with hmac :%s , expire-time-period :%d\n", hmac, periodMs)
}

// Renewed is --renew's last line (no line break, as Apache prints it).
func Renewed(expiry time.Time) string {
	return "Completed renew operation. New expiry date : " + JavaDate(expiry)
}

// Expired is --expire's last line (no line break).
func Expired(expiry time.Time) string {
	return "Completed expire operation. New expiry date : " + JavaDate(expiry)
}

// DescribeCall is the line --describe prints before its request.
func DescribeCall(owners []Principal) string {
	if len(owners) == 0 {
		return "Calling describe token operation for current user.\n"
	}
	return fmt.Sprintf("Calling describe token operation for owners: %s\n", javaList(owners))
}

const rowFormat = "\n%-15s %-30s %-15s %-15s %-25s %-15s %-15s %-15s\n"

// writeTable is printToken: the header and one row per token, each after
// an empty line.
func writeTable(w io.Writer, ts []Token) error {
	var b strings.Builder
	fmt.Fprintf(&b, rowFormat, "TOKENID", "HMAC", "OWNER", "REQUESTER", "RENEWERS", "ISSUEDATE", "EXPIRYDATE", "MAXDATE")
	for _, t := range ts {
		fmt.Fprintf(&b, rowFormat, t.TokenID, t.HMAC, t.Owner, t.Requester, "["+strings.Join(t.Renewers, ", ")+"]",
			JavaDate(t.Issued), JavaDate(t.Expires), JavaDate(t.Max))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Created is the token --create made.
type Created struct {
	Token
}

// WriteApache prints what follows CreateCall.
func (c *Created) WriteApache(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "Created delegation token with tokenId : %s\n", c.TokenID); err != nil {
		return err
	}
	return writeTable(w, []Token{c.Token})
}

// Header implements output.Tabular.
func (c *Created) Header() []string { return header }

// Rows implements output.Tabular.
func (c *Created) Rows() [][]string { return [][]string{c.row()} }

// List is the tokens --describe found.
type List struct {
	Tokens []Token `json:"tokens"`
	// noHMAC: the HMACs were hidden (HideHMAC); the table has no column
	// for them.
	noHMAC bool
}

// HideHMAC blanks every token's HMAC, the password of the token: the
// native listing shows it only when asked.
func (l *List) HideHMAC() {
	l.noHMAC = true
	for i := range l.Tokens {
		l.Tokens[i].HMAC = ""
	}
}

// WriteApache prints what follows DescribeCall.
func (l *List) WriteApache(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "Total number of tokens : %d", len(l.Tokens)); err != nil {
		return err
	}
	return writeTable(w, l.Tokens)
}

// Header implements output.Tabular.
func (l *List) Header() []string { return l.cut(header) }

// Rows implements output.Tabular.
func (l *List) Rows() [][]string {
	rows := make([][]string, len(l.Tokens))
	for i, t := range l.Tokens {
		rows[i] = l.cut(t.row())
	}
	return rows
}

// cut leaves out the HMAC column (the second) when the HMACs are hidden.
func (l *List) cut(row []string) []string {
	if !l.noHMAC {
		return row
	}
	return append([]string{row[0]}, row[2:]...)
}

var header = []string{"TOKEN ID", "HMAC", "OWNER", "REQUESTER", "RENEWERS", "ISSUED", "EXPIRES", "MAX"}

func (t *Token) row() []string {
	at := func(x time.Time) string { return x.Local().Format("2006-01-02 15:04:05") }
	return []string{t.TokenID, t.HMAC, t.Owner, t.Requester, strings.Join(t.Renewers, ","), at(t.Issued), at(t.Expires), at(t.Max)}
}
