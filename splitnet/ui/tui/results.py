"""The end-of-round / end-of-game screen: how the round ended, every pad as printed, the
hands left, and the session's shuffle verdict."""

from __future__ import annotations

import re

from splitnet.games.split.describe import AUDIT_CHECKED
from splitnet.games.split.rules.scoring import pad_points, points_text, signed
from splitnet.games.split.rules.settings import ROWS
from splitnet.ui import REMATCH_KEYS, deals
from splitnet.ui.tui.render import Line, card_frags, paper_pad, words, wrap
from splitnet.ui.tui.summary import RoundSummary


def summary_lines(s: RoundSummary, width: int, after_game: bool = False) -> list[Line]:
    """One round's results; ``after_game``: looked back at once the game is over."""
    def name(seat: int) -> str:
        return "You" if seat == s.you else s.players[seat]

    lines: list[Line] = []
    who = name(s.seat)
    how = _how(s.reason)
    head = f"Round {s.round_no} of {s.rounds} over — {who} {how}."
    if s.game_over:
        win = s.winners
        if len(win) == 1:
            best = s.totals[win[0]]
            verb = "win" if win[0] == s.you else "wins"
            head += f"  GAME OVER: {name(win[0])} {verb} with {signed(best)}!"
        else:
            head += "  GAME OVER: " + " and ".join(name(w) for w in win) + " share the win."
    lines.append([("class:results.head", f" {head} ")])
    for seat, kind, faces in s.late_lays:
        cards: Line = []
        for f in faces:
            cards += [("", " "), *card_frags(f, width=0)]
        lines.append([("", f" {name(seat)} laid a late {kind} match:"), *cards])
    verdict = s.verdict or "shuffle audit pending…"
    style = "class:verdict.bad" if _bad(verdict) else "class:verdict"
    for i, t in enumerate(wrap(f"Shuffle: {verdict}", width - 2)):
        lines.append([(style, (" " if i == 0 else "   ") + t)])
    order = sorted(range(len(s.players)),
                   key=lambda p: (-s.totals[p], _neg(s, p), p))
    stand = "  ".join(f"{i + 1}. {name(p)} {signed(s.totals[p])}"
                      for i, p in enumerate(order))
    for i, t in enumerate(wrap(f"Standings: {stand}", width - 2)):
        lines.append([("class:results.stand", (" " if i == 0 else "   ") + t)])
    for p in order:
        lines.append([])
        before = {r: s.marks_before[p][r] for r in ROWS}
        this = {r: s.round_marks[p].get(r, 0) for r in ROWS}
        gain = s.totals[p] - pad_points(s.pad, before)
        after = {r: before[r] + this[r] for r in ROWS}
        got = ", ".join(f"+{this[r]} {r}" for r in ROWS if this[r]) or "no boxes"
        title = f"{name(p)} — {points_text(s.pad, after)}"
        sub = f"   this round {signed(gain, plus=True)} points ({got})"
        style = "class:results.you" if p == s.you else "class:results.player"
        for i, t in enumerate(wrap(title, width - 2, width - 4)):
            lines.append([(style, (" " if i == 0 else "   ") + t + " ")])
        lines.append([("class:dim", sub)])
        lines += [[("", " "), *ln] for ln in paper_pad(s.pad, s.marks_before[p], this,
                                                       width - 1)]
        hand = s.hands_left[p]
        left: Line = [("class:dim", "   hand left:")]
        if not hand:
            left.append(("class:dim", " none"))
        shown = [f for f in hand if f is not None]
        hidden = len(hand) - len(shown)
        for f in sorted(shown):
            left += [("", " "), *card_frags(f, width=0)]
        if hidden:
            left.append(("class:dim", f" {hidden} hidden card{'s' if hidden != 1 else ''}"))
        lines.append(left)
    lines.append([])
    rounds = " · ← earlier rounds" if s.round_no > 1 else ""
    if after_game and not s.game_over:
        lines.append(words(f" → later rounds and the end screen · ↑↓ scroll{rounds} · Esc the "
                           "table", "class:dim"))
    elif s.game_over:
        lines.append(words(f" → the end screen · q quits · ↑↓ PgUp PgDn scroll{rounds} · Esc "
                           "the table", "class:dim"))
    else:
        lines.append(words(" Enter/Esc back to the table (the next round is under way) · "
                           f"↑↓ scroll{rounds}", "class:dim"))
    return lines


_PASSED = re.compile(rf"Round (\d+): shuffle verified — {re.escape(AUDIT_CHECKED)}\.")


def shuffle_line(verdicts: list[str]) -> str:
    """The end screen's one sentence on the shuffles, from the rounds' verdicts: every
    audit passed — "Every shuffle checked: rounds 1–3 fair (…)" —, else the verdict
    that says what went wrong, else the verdicts once each.

    >>> from splitnet.games.split.describe import AUDIT_CHECKED
    >>> line = shuffle_line([f"Round {r}: shuffle verified — {AUDIT_CHECKED}." for r in (1, 2, 3)])
    >>> line == f"Every shuffle checked: rounds 1–3 fair ({AUDIT_CHECKED})."
    True
    """
    passed = [int(m[1]) for v in verdicts if (m := _PASSED.fullmatch(v))]
    if len(passed) == len(verdicts):
        rounds = sorted(set(passed))
        if len(rounds) == 1:
            which = f"round {rounds[0]}"
        elif rounds == list(range(rounds[0], rounds[-1] + 1)):
            which = f"rounds {rounds[0]}–{rounds[-1]}"
        else:
            which = "rounds " + ", ".join(map(str, rounds))
        return f"Every shuffle checked: {which} fair ({AUDIT_CHECKED})."
    if len(set(verdicts)) == 1 or _bad(verdicts[-1]):
        return f"Shuffle: {verdicts[-1]}"
    return "Shuffle: " + " ".join(dict.fromkeys(verdicts))


def _bad(verdict: str) -> bool:
    low = verdict.lower()
    return any(w in low for w in ("cheat", "fail", "mismatch", "invalid", "wrong"))


def final_lines(rounds: list[RoundSummary], width: int, next_dealer: int | None,
                again: str | None = None, role: str = "local",
                another: str | None = None) -> list[Line]:
    """The end of the game: the winner, the standings, the round-by-round story (points
    per round, running totals), every pad as printed, and what comes next (a new game
    against the same players when ``next_dealer`` is the seat that deals its first round; on a
    LAN, ``again`` is the command that opens or joins another game; ``another``, if given,
    says instead how to get into another game, beside the rematch too). ``role`` says
    who would press ``n`` (:data:`REMATCH_KEYS`)."""
    last = rounds[-1]

    def name(seat: int) -> str:
        return "You" if seat == last.you else last.players[seat]

    n = len(last.players)
    win = last.winners
    if len(win) == 1:
        verb = "win" if win[0] == last.you else "wins"
        head = f"GAME OVER — {name(win[0])} {verb} with {signed(last.totals[win[0]])}"
    else:
        head = "GAME OVER — " + " and ".join(name(w) for w in win) + \
            f" share the win with {signed(last.totals[win[0]])}"
    lines: list[Line] = [[("class:results.head", f" {head} ")], []]
    order = sorted(range(n), key=lambda p: (-last.totals[p], _neg(last, p), p))
    stand = "  ".join(f"{i + 1}. {name(p)} {signed(last.totals[p])}"
                      for i, p in enumerate(order))
    for i, t in enumerate(wrap(f"Standings: {stand}", width - 2)):
        lines.append([("class:results.stand", (" " if i == 0 else "   ") + t)])
    # What comes next, near the top where it is seen.
    keys = "← the last round's results · ↑↓ scroll · Esc the table · q quits"
    if next_dealer is not None:
        who = deals(name(next_dealer), next_dealer == last.you)
        keys = REMATCH_KEYS[role].format(deals=who) + " · " + keys
        if another is not None:  # (a game that is not the rematch)
            keys += f" · another game: {another}"
    elif another is not None:
        keys += f" · another game: {another}"
    elif again is not None:
        keys += f" · another game: quit and run `{again}` again (the host shows a new code)"
    lines += [words((" " if i == 0 else "   ") + t, "class:ask.you")
              for i, t in enumerate(wrap(keys, width - 2, width - 4))]
    # The story: one line per round, then a table of points won per round.
    lines += [[], [("class:help.head", " Round by round ")]]
    for s in rounds:
        dealt = f"{name(s.dealer)} dealt; " if s.dealer is not None else ""
        how = _how(s.reason)
        story = f"Round {s.round_no}: {dealt}{name(s.seat)} {how}."
        if s.late_lays:
            story += f" {len(s.late_lays)} late match{'es' if len(s.late_lays) != 1 else ''}."
        for i, t in enumerate(wrap(story, width - 2, width - 4)):
            lines.append(words((" " if i == 0 else "   ") + t))
    col = max(6, min(10, (width - 12) // max(1, n)))
    head_cells = "".join(name(p)[:col - 1].rjust(col) for p in range(n))
    lines.append([("class:dim", " " + "points".ljust(10)), ("class:results.stand", head_cells)])
    for s in rounds:
        gains = [s.totals[p] - pad_points(s.pad, s.marks_before[p]) for p in range(n)]
        cells = "".join(signed(g, plus=True).rjust(col) for g in gains)
        lines.append([("", " " + f"round {s.round_no}".ljust(10) + cells)])
    total = "".join(signed(last.totals[p]).rjust(col) for p in range(n))
    lines.append([("class:results.stand", " " + "total".ljust(10) + total)])
    verdicts = [s.verdict for s in rounds if s.verdict]
    if verdicts:
        style = "class:verdict.bad" if any(_bad(v) for v in verdicts) else "class:verdict"
        for i, t in enumerate(wrap(shuffle_line(verdicts), width - 2)):
            lines.append([(style, (" " if i == 0 else "   ") + t)])
    # Every pad, as printed at the end.
    lines += [[], [("class:help.head", " The pads ")]]
    for p in order:
        marks = {r: last.marks_before[p][r] + last.round_marks[p].get(r, 0) for r in ROWS}
        style = "class:results.you" if p == last.you else "class:results.player"
        text = f"{name(p)} — {points_text(last.pad, marks)}"
        for i, t in enumerate(wrap(text, width - 2, width - 4)):
            lines.append([(style, (" " if i == 0 else "   ") + t + " ")])
        lines += [[("", " "), *ln] for ln in paper_pad(last.pad, marks, dict.fromkeys(ROWS, 0),
                                                       width - 1)]
    return lines


def _neg(s: RoundSummary, p: int) -> int:
    """Negative boxes, for the tie-break (R7.3: boxes — a full row takes no more)."""
    marks = s.marks_before[p]["negative"] + s.round_marks[p].get("negative", 0)
    return min(marks, s.pad.boxes("negative"))


def _how(reason: str) -> str:
    """How a round ended, in words (R4.2, R4.5; R8.6: a seat given up for gone)."""
    return {"out": "went out", "pile_empty": "drew the last card of the pile"}.get(
        reason, "was given up for gone: the round ended as it stood (R8.6)")
