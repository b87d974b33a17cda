// Package show writes what the commands print on a terminal: a run's
// summary, a comparison, a plan, a tuning, a trace's statistics, a
// scheduling cycle, a promotion's decisions, live jobs, the catalog, and
// the progress bar of a long run. It only formats results the libraries
// return; the commands decide what to print and where.
package show
