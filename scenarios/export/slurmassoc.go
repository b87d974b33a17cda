package export

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// slurmAccount is an account of Slurm's association tree.
type slurmAccount struct {
	name, parent string
	shares       float64 // RawShares (sshare) or Share (sacctmgr); NaN: none given
	sharesParent bool    // "parent": counted at its parent
	users        int
	children     []string
	grp          tres // GrpTRES
	grpRow       pipeRow
}

// slurmAccounts is the tree: accounts in the order met.
type slurmAccounts struct {
	order    []string
	by       map[string]*slurmAccount
	unmapped map[string][]string // column -> accounts that set it
	cols     []string
	listed   bool // a listing was read
	nested   bool // a listing said who holds whom
	// userShares are the user associations with shares of their own.
	userShares map[string]bool
}

// slurmAssocLimits are sacctmgr's association limits allot has no key
// for: a value there is warned about.
var slurmAssocLimits = []string{"GrpJobs", "GrpSubmit", "GrpWall", "GrpTRESMins", "GrpTRESRunMins", "MaxJobs",
	"MaxTRES", "MaxTRESPerNode", "MaxSubmit", "MaxWall", "MaxTRESMins", "Priority", "QOS", "Def QOS"}

func newSlurmAccounts() *slurmAccounts {
	return &slurmAccounts{by: map[string]*slurmAccount{}, unmapped: map[string][]string{}, userShares: map[string]bool{}}
}

// account is the named account, added as met.
func (a *slurmAccounts) account(name string) *slurmAccount {
	acc, ok := a.by[name]
	if !ok {
		acc = &slurmAccount{name: name, shares: math.NaN()}
		a.by[name] = acc
		a.order = append(a.order, name)
	}
	return acc
}

// read reads `sshare -P -a` (a RawShares column) or `sacctmgr show assoc
// -P` (Share; with `tree`, or format=...,ParentName, for the nesting).
func (a *slurmAccounts) read(path string, assocOnly bool, w *importWarnings) error {
	t, err := readPipeTable(path, "sshare -P -a or sacctmgr show assoc -P", "Account", "User")
	if err != nil {
		return err
	}
	sharesCol, what := "RawShares", "sshare"
	if !t.has("RawShares") || assocOnly {
		sharesCol, what = "Share", "assoc"
		if !t.has("Share") {
			return fmt.Errorf("%s: line 1: column Share: missing from the header: expected sacctmgr show assoc -P (or sshare -P -a, with RawShares)", path)
		}
	}
	parentCol := ""
	for _, c := range []string{"ParentName", "Par Name"} {
		if t.has(c) {
			parentCol = c
		}
	}
	var stack []string // the accounts open at each depth (indented listings)
	indented, cluster := false, ""
	for _, r := range t.rows {
		if c := r.get("Cluster"); c != "" {
			if cluster == "" {
				cluster = c
			} else if c != cluster {
				w.add(what, "Cluster", "several clusters: only %s's associations are read", cluster)
				continue
			}
		}
		raw := r.raw("Account")
		name := strings.TrimSpace(raw)
		if name == "" {
			return r.errf("Account", "empty")
		}
		depth := len(raw) - len(strings.TrimLeft(raw, " "))
		indented = indented || depth > 0
		if user := r.get("User"); user != "" {
			a.account(name).users++
			if s := r.get(sharesCol); s != "" && !strings.EqualFold(s, "parent") {
				a.userShares[user+" in "+name] = true
			}
			a.limits(t, r, user+" in "+name)
			if g := r.get("GrpTRES"); g != "" {
				w.add(what, "GrpTRES", "limits of user associations (%s in %s: %s, and others) are not mapped: allot's quotas are per team", user, name, g)
			}
			continue
		}
		if r.get("Partition") != "" {
			continue // account associations have no partition; sacctmgr prints none
		}
		acc := a.account(name)
		if depth < len(stack) {
			stack = stack[:depth]
		}
		for len(stack) < depth {
			stack = append(stack, "")
		}
		stack = append(stack, name)
		parent := ""
		if parentCol != "" {
			parent = r.get(parentCol)
		} else if depth > 0 {
			parent = stack[depth-1]
		}
		if parent != "" && acc.parent == "" && name != "root" {
			acc.parent = parent
		}
		if err := a.shares(acc, r, sharesCol); err != nil {
			return err
		}
		if t.has("GrpTRES") && r.get("GrpTRES") != "" {
			g, err := parseTRES(r.get("GrpTRES"))
			if err != nil {
				return r.errf("GrpTRES", "%v", err)
			}
			acc.grp, acc.grpRow = g, r
		}
		a.limits(t, r, name)
	}
	a.listed, a.nested = true, a.nested || parentCol != "" || indented
	return nil
}

// shares reads an account's shares: a number, or "parent".
func (a *slurmAccounts) shares(acc *slurmAccount, r pipeRow, col string) error {
	s := r.get(col)
	switch {
	case s == "":
	case strings.EqualFold(s, "parent"):
		acc.sharesParent = true
	default:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) {
			return r.errf(col, "%q is not a number of shares (or parent)", s)
		}
		if math.IsNaN(acc.shares) {
			acc.shares = v
		}
	}
	return nil
}

// limits notes the association limits allot has no key for.
func (a *slurmAccounts) limits(t *pipeTable, r pipeRow, who string) {
	for _, c := range slurmAssocLimits {
		if t.has(c) && r.get(c) != "" {
			a.unmapped[c] = appendNew(a.unmapped[c], who)
			a.cols = appendNew(a.cols, c)
		}
	}
}

// finish links the tree: parents' children, unknown parents added under
// root, root added where accounts name it.
func (a *slurmAccounts) finish(w *importWarnings) {
	for _, name := range append([]string(nil), a.order...) {
		acc := a.by[name]
		if name != "root" && acc.parent == "" {
			acc.parent = "root"
		}
		if acc.parent != "" {
			p := a.account(acc.parent)
			if p.name != "root" && p.parent == "" {
				p.parent = "root"
			}
			p.children = appendNew(p.children, name)
		}
	}
	if a.listed && !a.nested && len(a.order) > 1 {
		w.add("assoc", "Account", "the listing does not nest (no ParentName column, no tree indentation): every account is taken as a child of root")
	}
	if len(a.userShares) > 0 {
		w.add("assoc", "RawShares", "the shares of users within their account (%d user associations) are not mapped: allot's shares are between teams; policy.usage_half_life shares a team among its users", len(a.userShares))
	}
	for _, c := range a.cols {
		w.add("assoc", c, "set on %s: not mapped (allot has no such limit)", nodeList(a.unmapped[c]))
	}
}

// leaf says whether an account holds no other accounts.
func (acc *slurmAccount) leaf() bool { return len(acc.children) == 0 }
