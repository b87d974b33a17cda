// Package planner searches for fleets by simulation: the cheapest node
// count of each instance type that meets a set of objectives, without
// simulating the whole grid of counts.
//
// The search owns no simulator. It asks for points in rounds (Search.Next);
// the caller simulates them, however and wherever it likes (all cores, or
// shards on other machines), and hands the verdicts back (Search.Record).
// The rounds depend on nothing but the verdicts recorded, so a search
// replayed from the same verdicts asks for the same points and gives the
// same answer: that is what lets a sharded search resume round by round.
//
// The search assumes what capacity planning assumes: more nodes never make
// a capacity objective (a wait, the unstarted share) worse, and fewer nodes
// never make a utilisation objective worse. Under that assumption its
// answer is the grid's optimum; Check reports where a run contradicts it.
package planner
