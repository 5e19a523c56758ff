"""Who leads a pair of timed calls at one point: their orders (as run, by kernel sum, and the equal-clock model, which
decides nothing) beside the point's as-run noise of identical kernels, and the report's one rule on them
(gen.analysis.rules.lead_decided). Takes two gen.analysis.calls.Timed rows and the ranking time's name; gives `Orders`
and `leads`. Numbers only: gen.report.words.orders words them."""

from __future__ import annotations

from dataclasses import dataclass

from gen.analysis import calls, rules
from gen.analysis.calls import Timed, faster
from gen.analysis.pair_noise import AsRunNoise

# Why a pair's lead is not decided (Orders.why_not_decided), the first reason the rule stops at (rules.lead_decided)
OVERLAP = "overlap"  # the as-run intervals overlap
TIMED_APART = "timed apart"  # not timed in the same rounds, and no fair kernel sums (or lead past the reach) decide
ORIENTATION = "orientation"  # the lead flips or falls within the floor in one round orientation
PAIR_NOISE = "pair noise"  # within the as-run noise of identical kernels, and the kernel sums do not decide
KERNEL_SUMS = "kernel sums"  # the fair kernel sums put the other call ahead
AS_RUN, BY_KERNEL_SUM = "as run", "kernel sum"  # the measure a lead is decided by (Orders.deciding)


@dataclass(frozen=True)
class Orders:
    """Two calls' orders at one point (rules.lead_decided), `first` ahead by its as-run median. Each ratio is
    second's time over first's (above 1: first ahead); None where that order is not there. `equal_clock` is a model
    (time x window clock / reference clock) that the rule does not read: round times do not follow their clock."""

    first: str
    second: str
    as_run: float | None
    apart: bool  # the as-run intervals are apart
    equal_clock: float | None
    kernel_sum: float | None
    first_mhz: float | None  # the as-run windows' mean SM clocks
    second_mhz: float | None
    first_ks_ms: float | None  # the kernel sums and their windows' clocks
    second_ks_ms: float | None
    first_ks_mhz: float | None
    second_ks_mhz: float | None
    clock_gap_pct: float | None  # rules.clock_gap_pct of the as-run windows, where equal clock applies
    decided: bool  # rules.lead_decided: first leads
    noise: AsRunNoise | None = None  # the point's as-run noise of identical kernels (gen.analysis.pair_noise)
    # second's over first's median in the forward rounds and in the reversed ones (timings.orientation_medians);
    # None where the set did not reverse its rounds
    forward: float | None = None
    reverse: float | None = None
    # where each call's GPU-only time was taken (calls.rounds_of: calls.SHARED, ALONE, AFTER, OWN; None: not known) and
    # whether the two shared rounds (calls.same_rounds: False, the as-run order decides nothing; None: not known)
    first_rounds: str | None = None
    second_rounds: str | None = None
    same_rounds: bool | None = None
    first_with: tuple[str, ...] = ()  # the calls each took rounds with (Timed.rounds_with)
    second_with: tuple[str, ...] = ()
    # the point is memory-bound (judged in TB/s: rules.equal_clock_applies false), where the kernel sums' clock gate
    # (rules.CLOCK_GAP_PCT) still holds: how far its kernels' time follows the SM clock is not measured
    memory_bound: bool = False
    # second's over first's GPU-only median within each round the two shared (calls.same_rounds), in order; () where
    # they shared none or either has no round medians (rules.paired_intervals)
    per_round: tuple[float, ...] = ()
    # the shared rounds' outcome for the pair, held against each member of a tie (rules.paired_leads, _paired): True,
    # first ahead; False, second ahead; None, neither (or no shared rounds)
    by_rounds: bool | None = None
    # where the outcome of the pair alone is not held against a tie member: that member's name (the tie not split)
    tie_against: str | None = None
    # each call's own forward and reversed round medians (_oriented; (None, None) where it has none): a lead smaller
    # than its leader's own swing between orientations is told beside it (own_swing)
    first_oriented_ms: tuple[float | None, float | None] = (None, None)
    second_oriented_ms: tuple[float | None, float | None] = (None, None)
    # (the call of the pair, calls.OffGraph) for each whose kernel sum, or a twin's, lies past
    # rules.KERNEL_SUM_GRAPH_RATIO from its own graph replay (Timed.off_graph): the kernel sums are then left out (None
    # above) and decide nothing
    off_graph: tuple[tuple[str, calls.OffGraph], ...] = ()
    # where off_graph leaves the kernel sums out: the ratio they would have given (second's sum over first's), which
    # decides nothing but is told beside the set-aside; None elsewhere or where a sum is missing
    kernel_sum_aside: float | None = None

    def own_swing(self, variant: str) -> float | None:
        """How far `variant`'s own forward and reversed round medians lie apart (the larger over the smaller:
        FlexAttention's 1.15x at paired packed documents, beside a 1.11x lead); None where it has
        no reversed rounds of its own."""
        fw, rv = self.first_oriented_ms if variant == self.first else self.second_oriented_ms
        if not fw or not rv:
            return None
        return max(fw, rv) / min(fw, rv)

    @property
    def round_groups(self) -> tuple[tuple[float, ...], ...]:
        """The per-round ratios by orientation: the forward rounds' (1st, 3rd, ...) and the reversed ones' where the
        set reversed its rounds (timings.orientation_medians), else all in one."""
        if not self.per_round:
            return ()
        return (self.per_round[0::2], self.per_round[1::2]) if self.oriented else (self.per_round,)

    @property
    def paired(self) -> tuple[tuple[float, float], ...] | None:
        """Each orientation's interval of the per-round ratios' median (rules.paired_intervals); None where too few
        rounds."""
        return rules.paired_intervals(self.round_groups) if self.per_round else None

    @property
    def paired_line(self) -> float | None:
        """The per-round noise line of identical kernels the intervals are set against (pair_noise.AsRunNoise)."""
        return self.noise.per_round if self.noise is not None else None

    @property
    def kernel_sum_noise(self) -> float | None:
        """The point's kernel-sum noise of identical kernels (rules.kernel_sum_floor)."""
        return self.noise.kernel_sum if self.noise is not None else None

    @property
    def kernel_sum_floor(self) -> float:
        return rules.kernel_sum_floor(self.kernel_sum_noise)

    @property
    def paired_leader(self) -> str | None:
        """The call the shared rounds put ahead (by_rounds: past the per-round noise line in each orientation, and
        against each member of a tie); None where neither."""
        return None if self.by_rounds is None else self.first if self.by_rounds else self.second

    @property
    def decided_by_rounds(self) -> bool:
        """Decided by the paired rule alone (rules.lead_decided): the per-round ratios' intervals past the line in each
        orientation, where the rule without them would leave the lead not decided."""
        if not self.decided or self.paired_leader != self.first:
            return False
        gap = rules.clock_gap_pct(self.first_ks_mhz, self.second_ks_mhz) if self.kernel_sum is not None else None
        clocks = (None, None) if self.memory_bound else (self.first_ks_mhz, self.second_ks_mhz)
        noise = self.noise
        return not rules.lead_decided(self.apart, self.as_run, noise.ratio if noise else None, self.kernel_sum, gap,
                                      (self.forward, self.reverse), self.same_rounds,
                                      noise.oriented if noise else None, clocks,
                                      kernel_sum_noise=self.kernel_sum_noise)

    @property
    def timed_apart(self) -> bool:
        """The two were not timed in the same rounds: only the kernel sums at one clock may decide
        (rules.lead_decided)."""
        return self.same_rounds is False

    @property
    def oriented(self) -> bool:
        return self.forward is not None and self.reverse is not None

    @property
    def orientation_split(self) -> bool:
        """The as-run intervals apart, but the lead not beyond the floor in one of the two orientations: it flips or
        shrinks to nothing with the neighbour the calls ran after (rules.lead_decided)."""
        return (self.apart and self.oriented and not self.timed_apart
                and min(self.forward, self.reverse) <= rules.TIME_FLOOR)

    @property
    def decided_by_kernel_sum(self) -> bool:
        """Decided where the as-run ratio is within the point's noise line (its own or borrowed): the kernel sums, at
        clocks within rules.CLOCK_GAP_PCT, and both orientations agree with it (rules.lead_decided)."""
        return self.decided and self.within_noise_of_pair and not self.timed_apart

    @property
    def sums_decide(self) -> bool:
        """Decided, and by the kernel sums (rules.lead_decided): against the point's noise line
        (decided_by_kernel_sum), or between two calls timed apart whose lead is within rules.TIMED_APART_REACH, where
        only the sums at one clock may decide. The first screen says so beside a first place."""
        if not self.decided:
            return False
        return self.decided_by_kernel_sum or (self.timed_apart and self.as_run is not None
                                              and self.as_run <= rules.TIMED_APART_REACH)

    @property
    def past_reach(self) -> bool:
        """Decided, timed apart, with an as-run lead past rules.TIMED_APART_REACH (gen.analysis.reach's pairs)."""
        return (self.decided and self.timed_apart and self.as_run is not None
                and self.as_run > rules.TIMED_APART_REACH)

    @property
    def reach_decides(self) -> bool:
        """Decided by the as-run lead past rules.TIMED_APART_REACH alone: timed apart, and the kernel sums would not
        decide the pair on their own, the rule read as for a lead within the reach (sums missing, or not taken
        within rules.CLOCK_GAP_PCT of one clock, or within the floor), so the reach's count
        leaves out pairs the fair sums decide anyway (Naive 2.2x behind SDPA math at decode 131k keys, both at 1980
        MHz)."""
        if not self.past_reach:
            return False
        gap = rules.clock_gap_pct(self.first_ks_mhz, self.second_ks_mhz) if self.kernel_sum is not None else None
        return not rules.lead_decided(self.apart, rules.TIMED_APART_REACH, None, self.kernel_sum, gap,
                                      (self.forward, self.reverse), False,
                                      kernel_sum_clocks=(None, None) if self.memory_bound
                                      else (self.first_ks_mhz, self.second_ks_mhz),
                                      kernel_sum_noise=self.kernel_sum_noise)

    @property
    def undecided(self) -> bool:
        """The as-run intervals apart, but the rule leaves the lead not decided (rules.lead_decided)."""
        return self.apart and not self.decided

    @property
    def clocks_apart(self) -> bool:
        """The as-run windows' clocks more than rules.CLOCK_GAP_PCT apart, where equal clock applies."""
        return self.clock_gap_pct is not None and self.clock_gap_pct > rules.CLOCK_GAP_PCT

    @property
    def within_noise_of_pair(self) -> bool:
        """The as-run intervals apart, but the ratio not beyond what identical kernels read at this point, or its
        weaker round orientation not beyond what they read in one orientation (rules.beyond_pair_noise)."""
        if not self.apart or self.noise is None or self.as_run is None or self.timed_apart:
            return False
        return not rules.beyond_pair_noise(self.as_run, (self.forward, self.reverse), self.noise.ratio,
                                           self.noise.oriented)

    @property
    def kernel_sum_fair(self) -> bool:
        """The two kernel sums' windows ran within rules.CLOCK_GAP_PCT of each other (or their clocks are not
        known), or their lead exceeds what the clock gap can explain (past_clock): only then may the sums overrule
        the as-run order."""
        return self.kernel_sum_one_clock or self.past_clock is not None

    @property
    def kernel_sum_one_clock(self) -> bool:
        """The two kernel sums' windows ran within rules.CLOCK_GAP_PCT of each other, or their clocks are not known."""
        return not self.kernel_sum_clocks_apart

    @property
    def kernel_sum_clocks_apart(self) -> bool:
        """The two kernel sums' windows ran more than rules.CLOCK_GAP_PCT apart in clock (both known): the words read
        this, not the gate (issue 34)."""
        return rules.clocks_apart(self.first_ks_mhz, self.second_ks_mhz)

    @property
    def past_clock(self) -> float | None:
        """Where the kernel sums ran past rules.CLOCK_GAP_PCT apart in clock, their ratio less the most the gap can
        explain (rules.sums_past_clock), where that is still beyond the floor; else None."""
        if self.kernel_sum_one_clock or self.memory_bound:  # HBM's time need not follow the SM clock at all
            return None
        return rules.sums_past_clock(self.kernel_sum, self.first_ks_mhz, self.second_ks_mhz, self.kernel_sum_floor)

    @property
    def clock_explains(self) -> float | None:
        """The most the kernel sums' clock gap can explain of the leader's lead (its clock over the other's, at least
        1), where past_clock is not None."""
        if self.past_clock is None or self.kernel_sum is None:
            return None
        return self.kernel_sum / self.past_clock if self.kernel_sum >= 1 else self.past_clock / self.kernel_sum

    @property
    def kernel_sum_conservative(self) -> bool:
        """The call the kernel sums put ahead ran its profiled window at the same or a lower clock than the other: at
        equal clock its lead would only grow, so the order stands however far apart
        the clocks are; it still decides nothing as run (rules.lead_decided)."""
        lower = self.kernel_sum_leader_clock_pct
        return lower is not None and lower >= 0

    @property
    def kernel_sum_least(self) -> bool:
        """The kernel sums' leader ran its window past rules.CLOCK_GAP_PCT lower in clock than the other: their ratio
        is the least its lead would be at one clock (kernel_sum_conservative's assumption), a bound, never a value to
        hold against rules.ADVICE_MIN_GAIN (cuDNN FP8's 1.195x at 1755 against FA4's 1965 MHz)."""
        return self.kernel_sum_clocks_apart and self.kernel_sum_conservative

    @property
    def kernels_leader(self) -> str | None:
        """Within noise as run (the as-run intervals overlap), the call the kernel sums put ahead past
        rules.kernel_sum_floor (the point's kernel-sum noise of identical kernels, at least rules.TIME_FLOOR_PCT), at
        clocks within rules.CLOCK_GAP_PCT or with that call at the lower clock
        (kernel_sum_conservative), and ahead in both round orientations where the set reversed them: a lead the
        as-run times cannot show but no measure contradicts (cuDNN FP8 1.20x by kernel
        sum at an 11% lower clock). It does not change who leads (rules.lead_decided); the decision does not count
        the other call's workload as a first place for it. None where there is no such call."""
        ks = self.kernel_sum
        floor = self.kernel_sum_floor
        if self.apart or self.timed_apart or ks is None or not (ks > floor or ks * floor < 1):
            return None
        if not (self.kernel_sum_fair or self.kernel_sum_conservative):
            return None
        first = ks > 1
        if self.oriented and not all((r > 1) == first for r in (self.forward, self.reverse)):
            return None
        return self.first if first else self.second

    @property
    def why_not_decided(self) -> str | None:
        """Where the rule leaves the lead not decided, the first reason it stops at: OVERLAP, TIMED_APART,
        ORIENTATION, PAIR_NOISE or KERNEL_SUMS; None where it is decided (the home map
        gave "intervals overlap" for sliding windows, whose intervals are 164 µs apart but which were timed apart)."""
        if self.decided:
            return None
        if not self.apart:
            return OVERLAP
        if self.timed_apart:
            return TIMED_APART
        if self.orientation_split:
            return ORIENTATION
        if self.within_noise_of_pair:
            return PAIR_NOISE
        return KERNEL_SUMS

    @property
    def deciding(self) -> tuple[float | None, str]:
        """(second's time over first's, the measure) by which the rule decides the lead: the kernel sums where they
        decide it (timed apart within the reach, or against the noise line: rules.lead_decided), else as run;
        as run where nothing decides (the order the pages show, not a decision)."""
        if self.decided and self.kernel_sum is not None and (
                self.decided_by_kernel_sum
                or (self.timed_apart and not (self.as_run is not None and self.as_run > rules.TIMED_APART_REACH))):
            return self.kernel_sum, BY_KERNEL_SUM
        return self.as_run, AS_RUN

    @property
    def answer(self) -> tuple[float | None, str]:
        """(second's time over first's, the measure) the pages give as the pair's one answer: `deciding`'s, except
        within noise as run where the kernel sums name a leader (kernels_leader), which every page words as the other
        call behind by kernel sum: then the kernel sums (the home map's FP8 cell gave
        1.08x as run beside a row saying FA4 is behind by kernel sum, 1.195x)."""
        if self.kernels_leader is not None and self.kernel_sum is not None:
            return self.kernel_sum, BY_KERNEL_SUM
        return self.deciding

    @property
    def sums_under_bar(self) -> bool:
        """The kernel sums' lead, either way, under rules.ADVICE_MIN_GAIN: too small for What to call to name the
        leader over the other call, whatever else decides the pair."""
        ks = self.kernel_sum
        return ks is not None and max(ks, 1 / ks) < rules.ADVICE_MIN_GAIN

    @property
    def kernel_sum_leader_clock_pct(self) -> float | None:
        """The kernel sums' clock gap (rules.clock_gap_pct), positive where the leader's clock ran the lower, negative
        where the higher."""
        if self.kernel_sum is None or not self.first_ks_mhz or not self.second_ks_mhz:
            return None
        lead_mhz, other_mhz = ((self.first_ks_mhz, self.second_ks_mhz) if self.kernel_sum >= 1
                               else (self.second_ks_mhz, self.first_ks_mhz))
        gap = rules.clock_gap_pct(lead_mhz, other_mhz)
        return gap if lead_mhz <= other_mhz else -gap


def beyond_floor(r: float | None) -> bool:
    """A ratio of two times that puts one call ahead by more than rules.TIME_FLOOR_PCT, either way."""
    return r is not None and (r > rules.TIME_FLOOR or r * rules.TIME_FLOOR < 1)


def kernel_sum_ms(t: Timed) -> float | None:
    """A call's kernel sum as an order's evidence; None where it exceeds both its own graph and eager medians by more
    than rules.KERNEL_SUM_EXCESS (the profiled calls then ran otherwise than the timed ones:
    SDPA flash at decode 131k keys 19% above both)."""
    ks = t.kernel_sum_ms
    times = [s.median for s in (t.gpu_only, t.eager) if s is not None and s.median]
    if ks is None or not times:
        return ks
    return None if ks > rules.KERNEL_SUM_EXCESS * max(times) else ks


def _oriented(t: Timed, s, other: Timed) -> tuple[float | None, float | None]:
    """t's forward and reversed medians; where t was timed without reversed rounds (alone, or in a set before them)
    and `other` has both, t's whole median for each: its rounds did not alternate between two predecessors, and the
    other's lead must still hold after each of its own."""
    if t.forward_ms is not None and t.reversed_ms is not None:
        return t.forward_ms, t.reversed_ms
    if other.forward_ms is not None and other.reversed_ms is not None and s is not None and s.median:
        return s.median, s.median
    return None, None


def orders(a: Timed, b: Timed, basis: str) -> Orders:
    """a against b by their orders; the as-run one by `basis` (off the GPU there is only it, and no noise of
    identical kernels: graph replay gives it)."""
    sa, sb = getattr(a, basis, None), getattr(b, basis, None)
    apart = sa is not None and sb is not None and faster(sa, sb)
    on_gpu = basis == "gpu_only"

    def ratio(x, y):
        return y / x if on_gpu and x and y is not None else None
    eq = ratio(a.at_ref_ms, b.at_ref_ms)
    gap = rules.clock_gap_pct(a.sm_clock_mhz, b.sm_clock_mhz) if eq is not None else None
    off = tuple((x.variant, x.off_graph) for x in (a, b) if on_gpu and x.off_graph is not None)
    ka, kb = (None, None) if off else (kernel_sum_ms(a), kernel_sum_ms(b))
    ks = ratio(ka, kb)
    as_run = sb.median / sa.median if sa and sb and sa.median else None
    noise = (a.as_run_noise or b.as_run_noise) if on_gpu else None
    ks_gap = rules.clock_gap_pct(a.kernel_sum_mhz, b.kernel_sum_mhz) if ks is not None else None
    own_a, own_b = _oriented(a, sa, b), _oriented(b, sb, a)
    fwd, rev = (ratio(x, y) for x, y in zip(own_a, own_b))
    together = calls.same_rounds(a, b) if on_gpu else None
    per_round = _per_round(a.round_ms, b.round_ms) if together else ()
    oriented = fwd is not None and rev is not None
    by_rounds, tie_against = _paired(a, b, per_round, oriented, noise) if per_round else (None, None)
    memory_bound = on_gpu and not (a.equal_clock and b.equal_clock)
    clocks = (None, None) if memory_bound else (a.kernel_sum_mhz, b.kernel_sum_mhz)  # rules.sums_past_clock
    decided = (rules.lead_decided(apart, as_run, noise.ratio if noise else None, ks, ks_gap, (fwd, rev),
                                  together, noise.oriented if noise else None, clocks, by_rounds,
                                  noise.kernel_sum if noise else None)
               if on_gpu else apart)
    return Orders(a.variant, b.variant, as_run, apart, eq, ks, a.sm_clock_mhz, b.sm_clock_mhz,
                  ka, kb, a.kernel_sum_mhz, b.kernel_sum_mhz, gap, decided, noise, fwd, rev,
                  a.rounds, b.rounds, together, memory_bound=memory_bound, per_round=per_round,
                  by_rounds=by_rounds, tie_against=tie_against,
                  first_oriented_ms=own_a if on_gpu else (None, None),
                  second_oriented_ms=own_b if on_gpu else (None, None), off_graph=off,
                  first_with=a.rounds_with, second_with=b.rounds_with,
                  kernel_sum_aside=ratio(kernel_sum_ms(a), kernel_sum_ms(b)) if off else None)


def _groups(ratios: tuple[float, ...], oriented: bool) -> tuple[tuple[float, ...], ...]:
    return (ratios[0::2], ratios[1::2]) if oriented else (ratios,)


def _paired(a: Timed, b: Timed, per_round: tuple[float, ...], oriented: bool,
            noise: AsRunNoise | None) -> tuple[bool | None, str | None]:
    """The shared rounds' outcome for a against b (rules.paired_leads against the point's per-round line), held against
    each member of a tie (FA4 decided over SDPA with no backend pinned at GQA 16k, not over
    SDPA cuDNN, the same kernels): every call that ran the very same kernels as a or b in the same rounds
    (pair_noise.AsRunNoise.twins) must give the same outcome against the other side, else none. (outcome, the tie
    member that did not hold; None where all held)."""
    line = noise.per_round if noise is not None else None
    lead = rules.paired_leads(rules.paired_intervals(_groups(per_round, oriented)), line)
    if lead is None or noise is None:
        return lead, None
    side_a = [(a.variant, a.round_ms)] + [(x, noise.round_ms(x)) for x in noise.partners(a.variant) if x != b.variant]
    side_b = [(b.variant, b.round_ms)] + [(y, noise.round_ms(y)) for y in noise.partners(b.variant) if y != a.variant]
    for x, xr in side_a:
        for y, yr in side_b:
            if (x, y) == (a.variant, b.variant):
                continue
            ratios = _per_round(xr, yr)
            if rules.paired_leads(rules.paired_intervals(_groups(ratios, oriented)) if ratios else None, line) != lead:
                return None, y if x == a.variant else x
    return lead, None


def _per_round(a_ms: tuple[float, ...], b_ms: tuple[float, ...]) -> tuple[float, ...]:
    """b's round median over a's in each round the two shared, in order (both timed in the same rounds: the same
    count); () where either has none, or the counts differ."""
    if not a_ms or len(a_ms) != len(b_ms) or min(a_ms) <= 0:
        return ()
    return tuple(y / x for x, y in zip(a_ms, b_ms))


def leads(a: Timed, b: Timed, basis: str) -> bool:
    """a is decidedly ahead of b: by the as-run intervals, in both round orientations, beyond the point's noise of
    identical kernels (or, within that line, by kernel sums at one clock), not contradicted by the kernel sums
    (rules.lead_decided)."""
    return orders(a, b, basis).decided
