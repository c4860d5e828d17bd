// Package report draws a sweep's results: the HTML report (charts as
// inline SVG), the PNG summary and the terminal chart. It is the only perf
// package that links gonum/plot, so only the applets that draw charts
// carry it.
package report
