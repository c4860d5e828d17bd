package app

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The size rule of docs/DEVELOPING.md: no file of cmd/ over maxCmdFileLines
// lines, no function of cmd/ or pkg/ over maxFuncLines (tests excepted),
// and nothing allowed to stay over: a command parses, validates, calls one
// domain function and prints; a long function is split into named steps.
const (
	maxCmdFileLines = 600
	maxFuncLines    = 150
)

// sizeOffenders lists, under the repository root, the files and functions
// over the limits, as "path: N lines" and "path:line func: N lines".
func sizeOffenders(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	for _, dir := range []string{"cmd", "pkg"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if n := bytes.Count(src, []byte("\n")); dir == "cmd" && n > maxCmdFileLines {
				out = append(out, rel+": "+itoa(n)+" lines (file)")
			}
			f, err := parser.ParseFile(fset, path, src, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				var name string
				var body *ast.BlockStmt
				switch fn := n.(type) {
				case *ast.FuncDecl:
					name, body = fn.Name.Name, fn.Body
					if fn.Recv != nil && len(fn.Recv.List) > 0 {
						name = recvName(fn.Recv.List[0].Type) + "." + name
					}
				case *ast.FuncLit:
					name, body = "func literal", fn.Body
				}
				if body == nil {
					return true
				}
				start, end := fset.Position(n.Pos()).Line, fset.Position(body.End()).Line
				if lines := end - start + 1; lines > maxFuncLines {
					out = append(out, rel+":"+itoa(start)+" "+name+": "+itoa(lines)+" lines")
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	}
	return "?"
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// TestSizeLimits fails on any file or function over the limits.
func TestSizeLimits(t *testing.T) {
	for _, o := range sizeOffenders(t, filepath.Join("..", "..")) {
		t.Errorf("over the size limits: %s", o)
	}
}
