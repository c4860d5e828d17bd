// Package editdist is the weighted Damerau-Levenshtein distance (git's and
// argparse4j's, with adjacent transpositions): how far a mistyped name is
// from a known one, for "did you mean" suggestions.
package editdist

// Weighted is the cost of turning a into b with the given weights of an
// adjacent swap, a substitution, an addition and a deletion.
func Weighted(a, b string, swap, sub, add, del int) int {
	dp := [3][]int{make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)}
	for i := 0; i <= len(b); i++ {
		dp[1][i] = i
	}
	for i := 1; i <= len(a); i++ {
		dp[0][0] = i
		for j := 1; j <= len(b); j++ {
			c := sub
			if a[i-1] == b[j-1] {
				c = 0
			}
			dp[0][j] = dp[1][j-1] + c
			if i >= 2 && j >= 2 && a[i-1] != b[j-1] && a[i-2] == b[j-1] && a[i-1] == b[j-2] {
				dp[0][j] = min(dp[0][j], dp[2][j-2]+swap)
			}
			dp[0][j] = min(dp[0][j], min(dp[1][j]+del, dp[0][j-1]+add))
		}
		dp[0], dp[1], dp[2] = dp[2], dp[0], dp[1]
	}
	return dp[1][len(b)]
}

// Distance is Weighted with every edit costing 1.
func Distance(a, b string) int { return Weighted(a, b, 1, 1, 1, 1) }
