"""What the two mutation suites (test_hazards_mutations*.py) share: the
classes of a removed synchronization op, and the tally that holds each
mutant's findings against its class.

- race: two accesses to overlapping shared-memory bytes (one writing) can
  then run unordered; the analysis must report it;
- hang: a wait never completes (a removed arrive): no finding required;
- benign: something else still orders what the op ordered; no finding
  expected."""
import collections

RACE, HANG, BENIGN = "race", "hang", "benign"
UNCLASSIFIED = "unclassified"


class Tally:
    """Mutants of one kernel: `add` each, then `check`."""

    def __init__(self, title):
        self.title = title
        self.rows, self.wrong = [], []
        self.counts = collections.Counter()

    def add(self, kind, count, name, reason, before, after=""):
        """A mutant of class `kind` (or UNCLASSIFIED) with `count` findings;
        `name` says which in a failure; its row in the printed table is
        `before`, the class and the count, then `after`."""
        self.counts[kind, bool(count)] += 1
        if kind == UNCLASSIFIED or (kind == RACE and not count) or (kind == BENIGN and count):
            self.wrong.append(f"{name}: {kind}, {count} finding(s): {reason}")
        self.rows.append(f"{before} {kind:7} {count:3} finding(s){after}")

    def total(self, kind):
        return self.counts[kind, True] + self.counts[kind, False]

    def check(self):
        """Prints the summary and the table (pytest -s shows them); fails on
        a race without a finding, a benign mutant with one, or a mutant
        without a class."""
        print(f"\n{self.title}: {self.counts[RACE, True]} of {self.total(RACE)} races reported; "
              f"{self.total(BENIGN)} benign, {self.total(HANG)} hangs ({self.counts[HANG, True]} with findings)\n" +
              "\n".join(self.rows))
        assert not self.wrong, "\n".join(self.wrong)
