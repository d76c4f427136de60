"""The end-of-round / end-of-game screen: how the round ended, every pad as printed, the
hands left, and the session's shuffle verdict."""

from __future__ import annotations

from splitnet.rules.scoring import pad_points, points_text, signed
from splitnet.rules.settings import ROWS
from splitnet.ui.tui.render import Line, card_frags, paper_pad, words, wrap
from splitnet.ui.tui.summary import RoundSummary


def summary_lines(s: RoundSummary, width: int) -> list[Line]:
    def name(seat: int) -> str:
        return "You" if seat == s.you else s.players[seat]

    lines: list[Line] = []
    who = name(s.seat)
    how = "went out" if s.reason == "out" else "drew the last card of the pile"
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
                   key=lambda p: (-s.totals[p], s.marks_before[p]["negative"]
                                  + s.round_marks[p].get("negative", 0), p))
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
        title = f" {name(p)} — {points_text(s.pad, after)} "
        sub = f"   this round {signed(gain, plus=True)} points ({got})"
        style = "class:results.you" if p == s.you else "class:results.player"
        for i, t in enumerate(wrap(title, width - 1)):
            lines.append([(style, (" " if i else "") + t)])
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
    rounds = " · ←→ other rounds" if s.round_no > 1 else ""
    if s.game_over:
        lines.append(words(f" q quits · ↑↓ PgUp PgDn scroll{rounds} · Esc back to the table",
                           "class:dim"))
    else:
        lines.append(words(" Enter/Esc back to the table (the next round is under way) · "
                           f"↑↓ scroll{rounds}", "class:dim"))
    return lines


def _bad(verdict: str) -> bool:
    low = verdict.lower()
    return any(w in low for w in ("cheat", "fail", "mismatch", "invalid", "wrong"))
