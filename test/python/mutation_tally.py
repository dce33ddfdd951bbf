"""What the two mutation suites (test_hazards_mutations*.py) share: how a
synchronization op is found and removed from TTGIR text, the classes of a
removal, and the tally that holds each mutant's findings against its class.

- race: two accesses to overlapping shared-memory bytes (one writing) can
  then run unordered; the analysis must report it;
- hang: a wait never completes (a removed arrive): no finding required;
- benign: something else still orders what the op ordered; no finding
  expected."""
import collections
import re

RACE, HANG, BENIGN = "race", "hang", "benign"
UNCLASSIFIED = "unclassified"
ARRIVE_HANGS = "its waiter never sees the phase complete: a hang, not a race"
# Waits that take a count: made to wait for nothing, not deleted (their
# result is used).
_COUNTED_WAITS = {"ttg.async_wait": "num", "ttng.warp_group_dot_wait": "pendings",
                  "ttng.async_tma_store_wait": "pendings"}


def sync_ops(lines, sync):
    """(index, partition, op) of each line that the regex `sync` matches
    (its group 1 is the op), in program order; the partition is "main"
    outside warp_specialize, "default" or "partitionN" inside."""
    task = "main"
    for i, line in enumerate(lines):
        if re.match(r"^\s*default \{", line):
            task = "default"
        elif partition := re.match(r"^\s*(partition\d+)\(", line):
            task = partition.group(1)
        if match := sync.match(line):
            yield i, task, match.group(1)


def remove(lines, i, op):
    """The text with the op on line `i` removed: a counted wait waits for
    nothing, any other op (barrier waits and arrives, fences, named-barrier
    asm with an unused result) is deleted."""
    count = _COUNTED_WAITS.get(op)
    new = re.sub(rf"{count} = \d+", f"{count} = 1000", lines[i]) if count else ""
    return "\n".join(lines[:i] + [new] + lines[i + 1:])


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
