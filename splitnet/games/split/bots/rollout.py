"""The strong level's rollouts: the heuristic (:class:`~splitnet.games.split.bots.HeuristicBot`) at
every seat, each with its own perfect-bonus targeting rule
(:class:`~splitnet.games.split.bots.opponents.Targeting`), played to the end of the round on a flat
copy of a fully known position.

The search plays thousands of rollouts per decision, and on the engine most of a step is
spent building move objects and asking the engine's generators about them. Here the
state is plain lists of card ids (a hand, the row, the draw pile; a match is four
parallel entries: owner, kind, the faces of its two tops) and the heuristic's policy is
fused into one loop that applies its own choice at once (R4–R6 as in
:mod:`splitnet.games.split.rules.engine`).

This is a second implementation of rules and policy, so it is held to the reference: it
must play exactly the moves the heuristic plays on the engine, draw the same random
numbers, and end with exactly the same marks (tests/test_rollout.py checks that over
many seeded deals of 2–6 players, from every phase). The checked engine stays the
authority everywhere else; this module is used only inside the search, on determinized
copies (every face known).

Card ids are unique (R1.2: ``face * 2 + copy``), so a hand of card ids keeps the engine's
order of slots and a removal by card is a removal by slot.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final, cast

from splitnet.cards import _KIND_TABLE, N_CARDS
from splitnet.games.split.bots.opponents import Targeting
from splitnet.games.split.rules.engine import Game

#: match kinds as small integers, in strength order (R2.5)
WEAK: Final = 0
STRONG: Final = 1
PERFECT: Final = 2
_KIND_INT: Final[dict[str | None, int]] = {None: -1, "weak": WEAK, "strong": STRONG,
                                           "perfect": PERFECT}
#: R2: the kind two cards make, ``-1`` for no match; index ``a * 104 + b``
KIND: Final[tuple[int, ...]] = tuple(_KIND_INT[k] for k in _KIND_TABLE)

# The heuristic's figures (splitnet.games.split.bots: _KIND_VALUE, _LAY_VALUE, _NEG_VALUE), by kind.
_KV: Final = (3.0, 5.0, 7.0)
_KV1: Final = (4.0, 6.0, 8.0)  # an upgrade's value before the match's adjustment
_LAYV: Final = (5.0, 7.0, 9.0)
_OWN_ADJ: Final = tuple(1.0 - v for v in _KV)
_TAKE_ADJ: Final = tuple(1.0 + v * 0.8 for v in _KV)
_MARK_ROW: Final = (2, 1, 0)  # kind -> index in a marks row (perfect, strong, weak, neg)

_PHASE: Final[dict[str, int]] = {"draw": 0, "must_play": 1, "play": 2, "bonus": 3,
                                 "late_lays": 4, "round_over": 5, "game_over": 5}
_DRAW, _MUST, _PLAY, _BONUS, _LATE, _OVER = range(6)
_NOW, _SCORE = int(Targeting.NOW), int(Targeting.SCORE)

#: a trace entry: (move name, seat, *fields), cards named by card id (tests compare it
#: with the engine's moves)
Step = tuple[object, ...]


def rollout(g: Game, rngs: Sequence[random.Random],
            trace: list[Step] | None = None,
            targeting: Sequence[int] | None = None) -> list[list[int]]:
    """Play ``g`` (every face known) to the end of its round with the heuristic at every
    seat, seat ``s`` drawing from ``rngs[s]`` exactly as ``HeuristicBot.rng`` would, and
    return every seat's pad marks after the round is scored (R6.3), as
    ``[perfect, strong, weak, negative]`` per seat. ``g`` is not changed.

    ``targeting`` gives each seat's perfect-bonus rule
    (:class:`~splitnet.games.split.bots.opponents.Targeting`, as ``HeuristicBot.targeting``; default
    the leader now for all). ``trace`` collects the moves played (for the equivalence
    tests)."""
    if g.phase in ("round_over", "game_over"):
        return [[d["perfect"], d["strong"], d["weak"], d["negative"]] for d in g.marks]
    if None in g.faces:
        raise ValueError("R8: a rollout needs every face known (a determinized copy)")
    fs = cast(list[int], g.faces)
    n = g.n
    hands = [[fs[s] for s in h] for h in g.hands]
    row = [fs[s] for s in g.row]
    pile = fs[g.pile_next:]
    pi, npile = 0, len(pile)
    mo = [m.owner for m in g.matches]
    mk = [_KIND_INT[m.kind] for m in g.matches]
    m0 = [fs[m.top[0]] for m in g.matches]
    m1 = [fs[m.top[1]] for m in g.matches]
    turn = g.turn
    phase = _PHASE[g.phase]
    picked = -1 if g.picked is None else fs[g.picked]
    pending = _KIND_INT[g.pending_bonus]
    rm = [[d["perfect"], d["strong"], d["weak"], d["negative"]] for d in g.round_marks]
    marks = [[d["perfect"], d["strong"], d["weak"], d["negative"]] for d in g.marks]
    started = g.turns_started[:]
    late = g.late_queue[:]
    takes = g.settings.upgrade_takes_match
    pad = g.settings.pad
    vp, vs, vw, vn = pad.perfect, pad.strong, pad.weak, pad.negative
    lp, ls, lw, ln = len(vp) - 1, len(vs) - 1, len(vw) - 1, len(vn) - 1
    kt = KIND
    rec = trace is not None
    tr: list[Step] = trace if trace is not None else []
    end_seat = -1  # set when the round ends: the seat that went out, or -2 (pile empty)
    rules = list(targeting) if targeting is not None else [_NOW] * n
    if len(rules) != n:
        raise ValueError(f"targeting: expected a rule for each of the {n} seats")
    # Targeting.SCORE: the leader by the scored pads (constant in the round), lowest seat
    # first among equals.
    scored = [vp[min(d[0], lp)] + vs[min(d[1], ls)] + vw[min(d[2], lw)] - vn[min(d[3], ln)]
              for d in marks]
    by_score = [max((s for s in range(n) if s != me), key=lambda s: (scored[s], -s))
                for me in range(n)]

    for _step in range(5000):
        if phase == _DRAW:
            seat = turn
            hand = hands[seat]
            # R4.1b row picks (Game.row_picks) fused with HeuristicBot._draw_choice.
            counts = [0] * 13
            for c in hand:
                counts[c >> 3] += 1
            pairs = singles = 0
            for k in counts:
                pairs += k >> 1
                singles += k & 1
            base = pairs * 7.0 - singles * 3.0 * 0.5
            up_ranks = up_faces = 0
            nm = len(mk)
            for i in range(nm):
                kind = mk[i]
                if kind == WEAK:
                    up_ranks |= 1 << (m0[i] >> 3)
                elif kind == STRONG:
                    up_faces |= (1 << (m0[i] >> 1)) | (1 << (m1[i] >> 1))
            size = len(hand)
            threshold = 0.5 if npile - pi > 1 else -1.0
            best_i, best_gain, oldest = -1, threshold, -1
            nrow = len(row)
            for i in range(nrow - 1, -1, -1):
                c = row[i]
                r = c >> 3
                if counts[r] & 1:
                    pairs += 1
                    singles -= 1
                else:
                    singles += 1
                counts[r] += 1
                size += 1
                if ((size >= 3 and counts[r] >= 2) or (up_ranks >> r) & 1
                        or (up_faces >> (c >> 1)) & 1):
                    oldest = i
                    gain = pairs * 7.0
                    if counts[r] < 2:
                        best_up = 0.0
                        base_c = c * N_CARDS
                        for j in range(nm):
                            need = mk[j]
                            k = kt[base_c + m1[j]]
                            if k > need and _KV1[k] > best_up:
                                best_up = _KV1[k]
                            k = kt[base_c + m0[j]]
                            if k > need and _KV1[k] > best_up:
                                best_up = _KV1[k]
                        gain += best_up
                    gain = gain - singles * 3.0 * 0.5 - base
                    gain -= 0.4 * (nrow - i - 1)
                    if gain > threshold and gain >= best_gain:
                        best_i, best_gain = i, gain
            if best_i < 0 and npile - pi == 0:  # never: R4.2 ends the round first
                best_i = oldest
                if best_i < 0:
                    raise RuntimeError("R4.1: no draw possible")
            if best_i >= 0:
                if rec:
                    tr.append(("take_row", seat, best_i))
                picked = row[best_i]
                hand.extend(row[best_i:])
                del row[best_i:]
                phase = _MUST
            else:
                if rec:
                    tr.append(("draw_pile", seat))
                hand.append(pile[pi])
                pi += 1
                phase = _PLAY
                if pi >= npile:  # R4.2
                    end_seat = -2
        elif phase == _PLAY or phase == _MUST:
            seat = turn
            hand = hands[seat]
            must = picked if phase == _MUST else -1
            # HeuristicBot._best_play: the most valuable lay or upgrade, first of equals
            # in the engine's order.
            nh = len(hand)
            ranks = [c >> 3 for c in hand]
            best_v = -1e9
            bk = 0  # 0 none, 1 lay (bi, bj), 2 upgrade (bi, bm, bc)
            bi = bj = bm = bc = 0
            if nh >= 3:
                counts = [0] * 13
                for r in ranks:
                    counts[r] += 1
                for i in range(nh - 1):
                    r = ranks[i]
                    if counts[r] < 2:
                        continue
                    a = hand[i]
                    for j in range(i + 1, nh):
                        if ranks[j] != r:
                            continue
                        b = hand[j]
                        if must >= 0 and must != a and must != b:
                            continue
                        v = _LAYV[kt[a * N_CARDS + b]]
                        if v > best_v:
                            best_v, bk, bi, bj = v, 1, i, j
            if nh >= 2 and mk:
                in_hand = (1 << ranks[hand.index(must)]) if must >= 0 else 0
                if must < 0:
                    for r in ranks:
                        in_hand |= 1 << r
                for mid in range(len(mk)):
                    kind = mk[mid]
                    if kind == PERFECT:
                        continue
                    t0, t1 = m0[mid], m1[mid]
                    r = t0 >> 3
                    if not (in_hand >> r) & 1:
                        continue
                    adj = _OWN_ADJ[kind] if mo[mid] == seat else (
                        _TAKE_ADJ[kind] if takes else 1.0)
                    for i in range(nh):
                        if ranks[i] != r:
                            continue
                        s = hand[i]
                        if must >= 0 and s != must:
                            continue
                        k = kt[s * N_CARDS + t1]
                        if k > kind:
                            v = _KV[k] + adj
                            if v > best_v or (v == best_v and bk == 2 and (
                                    i < bi or (i == bi and mid < bm))):
                                best_v, bk, bi, bm, bc = v, 2, i, mid, 0
                        k = kt[s * N_CARDS + t0]
                        if k > kind:
                            v = _KV[k] + adj
                            if v > best_v or (v == best_v and bk == 2 and (
                                    i < bi or (i == bi and mid < bm))):
                                best_v, bk, bi, bm, bc = v, 2, i, mid, 1
            if bk:
                if bk == 1:
                    a, b = hand[bi], hand[bj]
                    if rec:
                        tr.append(("lay", seat, a, b))
                    del hand[bj]
                    del hand[bi]
                    kind = kt[a * N_CARDS + b]
                    mo.append(seat)
                    mk.append(kind)
                    m0.append(a)
                    m1.append(b)
                else:
                    s = hand[bi]
                    if rec:
                        tr.append(("upgrade", seat, s, bm, bc))
                    del hand[bi]
                    if bc == 0:
                        kind = kt[s * N_CARDS + m1[bm]]
                        m0[bm] = s
                    else:
                        kind = kt[s * N_CARDS + m0[bm]]
                        m1[bm] = s
                    if takes:
                        mo[bm] = seat
                    mk[bm] = kind
                picked = -1
                # R5: the bonus, or R5.4 its skip when it cannot be taken
                phase = _PLAY
                if kind == STRONG:
                    if npile - pi > 0:
                        pending, phase = STRONG, _BONUS
                elif kind == WEAK:
                    mine = theirs = 0
                    for j in range(len(mk)):
                        if mo[j] == seat:
                            mine |= 1 << mk[j]
                        else:
                            theirs |= 1 << mk[j]
                    if mine & theirs:
                        pending, phase = WEAK, _BONUS
                else:
                    pending, phase = PERFECT, _BONUS
            else:
                # HeuristicBot._discard_choice / _danger, the same random draws.
                counts = [0] * 13
                for r in ranks:
                    counts[r] += 1
                exposed: list[tuple[int, int, float]] = []
                for mid in range(len(mk)):
                    kind = mk[mid]
                    if kind == PERFECT or not counts[m0[mid] >> 3]:
                        continue
                    weight = 3.0 if mo[mid] == seat else 1.5
                    exposed.append((m1[mid], kind, weight))
                    exposed.append((m0[mid], kind, weight))
                row_ranks = [0] * 13
                for c in row:
                    row_ranks[c >> 3] += 1
                rand = rngs[seat].random
                best_d = 0.0
                best_at = -1
                for i in range(nh):
                    c = hand[i]
                    r = ranks[i]
                    score = 4.0 if counts[r] >= 2 else 0.0
                    for f2, need, weight in exposed:
                        if f2 >> 3 == r and kt[c * N_CARDS + f2] > need:
                            score += weight
                    score += row_ranks[r]
                    dv = score + rand() * 0.01
                    if best_at < 0 or dv < best_d:
                        best_d, best_at = dv, i
                c = hand[best_at]
                if rec:
                    tr.append(("discard", seat, c))
                del hand[best_at]
                row.append(c)
                if not hand:  # R4.5
                    end_seat = seat
                else:
                    turn = (seat + 1) % n  # R3.4
                    started[turn] += 1
                    phase = _DRAW
        elif phase == _BONUS:
            seat = turn
            rule = rules[seat]
            if pending == PERFECT and rule != _NOW:
                # HeuristicBot.perfect_target by another rule (R5.1)
                if rule == _SCORE:
                    target = by_score[seat]
                else:
                    target = rngs[seat].choice([s for s in range(n) if s != seat])
                if rec:
                    tr.append(("bonus_mark", seat, target))
                rm[target][3] += 1
                pending, phase = -1, _PLAY
            elif pending == PERFECT:
                # HeuristicBot.perfect_target: the leader as if the round ended now
                # (standing_now), ties by the bot's own random draw (R5.1).
                cp, cs, cw = [0] * n, [0] * n, [0] * n
                for j in range(len(mk)):
                    kind = mk[j]
                    if kind == PERFECT:
                        cp[mo[j]] += 1
                    elif kind == STRONG:
                        cs[mo[j]] += 1
                    else:
                        cw[mo[j]] += 1
                best_t = None
                leaders: list[int] = []
                for s in range(n):
                    if s == seat:
                        continue
                    d, r4 = marks[s], rm[s]
                    t = (vp[min(d[0] + r4[0] + cp[s], lp)] + vs[min(d[1] + r4[1] + cs[s], ls)]
                         + vw[min(d[2] + r4[2] + cw[s], lw)]
                         - vn[min(d[3] + r4[3] + len(hands[s]), ln)])
                    if best_t is None or t > best_t:
                        best_t, leaders = t, [s]
                    elif t == best_t:
                        leaders.append(s)
                target = leaders[0] if len(leaders) == 1 else rngs[seat].choice(leaders)
                if rec:
                    tr.append(("bonus_mark", seat, target))
                rm[target][3] += 1
                pending, phase = -1, _PLAY
            elif pending == STRONG and (npile - pi > 2 or len(hands[seat]) <= 2):
                if rec:
                    tr.append(("bonus_draw", seat))
                pending, phase = -1, _PLAY
                hands[seat].append(pile[pi])
                pi += 1
                if pi >= npile:  # R4.2
                    end_seat = -2
            else:  # a strong bonus near the pile's end, or the weak bonus: skipped
                if rec:
                    tr.append(("skip_bonus", seat))
                pending, phase = -1, _PLAY
        elif phase == _LATE:
            # R6.2: the late lays, the most valuable pair first (first of equals).
            seat = late[0]
            hand = hands[seat]
            nh = len(hand)
            best_v, bi, bj = -1.0, -1, -1
            for i in range(nh):
                ra = hand[i] >> 3
                for j in range(i + 1, nh):
                    if hand[j] >> 3 == ra:
                        v = _KV[kt[hand[i] * N_CARDS + hand[j]]] + 2.0
                        if v > best_v:
                            best_v, bi, bj = v, i, j
            if bi >= 0:
                a, b = hand[bi], hand[bj]
                if rec:
                    tr.append(("late_lay", seat, a, b))
                del hand[bj]
                del hand[bi]
                mo.append(seat)
                mk.append(kt[a * N_CARDS + b])
                m0.append(a)
                m1.append(b)
            else:
                if rec:
                    tr.append(("end_late_lays", seat))
                late.pop(0)
                if not late:
                    break
        else:
            break
        if end_seat != -1:
            # R6.1: the round ends; R6.2 after a go-out on one's own first turn.
            pending, picked = -1, -1
            if end_seat >= 0 and started[end_seat] == 1:
                late = [s for s in ((end_seat + i) % n for i in range(1, n))
                        if started[s] == 0]
            if not late:
                break
            phase = _LATE
            end_seat = -1
    else:  # pragma: no cover - a round always ends
        raise RuntimeError("rollout did not end the round")
    # R6.3: a box per match in front of its owner, a negative box per card in hand.
    for j in range(len(mk)):
        rm[mo[j]][_MARK_ROW[mk[j]]] += 1
    for s in range(n):
        rm[s][3] += len(hands[s])
        d, r4 = marks[s], rm[s]
        d[0] += r4[0]
        d[1] += r4[1]
        d[2] += r4[2]
        d[3] += r4[3]
    return marks
