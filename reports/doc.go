// Package reports turns run records into what people read: the run summary
// (KPIs of spec/summary.md), Parquet outputs, Markdown and HTML reports with
// charts, and side-by-side comparisons. Its sinks take records from either
// shell, so a live history and a simulation make the same report.
package reports
