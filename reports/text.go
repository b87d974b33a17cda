package reports

// FidelityText is the replay-fidelity paragraph of the reports, a sentence
// a line, for the text summary.
func FidelityText(f *Fidelity) []string { return fidelityLines(f) }
