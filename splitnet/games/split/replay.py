"""Split's replay (``splitnet replay`` of a Split game, its :class:`~splitnet.frontends.FrontEnd`
entry): each round's deal, then each turn in words, and the table after each step.

The table at each step is kept from the record's own events (who drew, took, laid,
upgraded, swapped, discarded what): a display of what the record says happened, not a
second rules engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from splitnet.cards import parse_face, pretty
from splitnet.games.split.rules import Settings
from splitnet.text import shown


def _c(text: str | None) -> str:
    """A card as the table shows it; ``?`` for one nobody ever read (a round an
    abandonment cut short: RECORD.md, R8.6)."""
    if text is None:
        return "?"
    f = parse_face(text)
    return pretty(f * 2)


def _cards(cards: Sequence[str | None]) -> str:
    return " ".join(_c(c) for c in cards)


def _in_order(cards: Sequence[str | None]) -> list[str | None]:
    """A hand sorted by face, the unread cards last."""
    return sorted(cards, key=lambda c: (c is None, parse_face(c) if c is not None else 0))


def describe_turn(turn: dict[str, Any], names: list[str]) -> list[str]:
    who = names[turn["seat"]]
    out = []
    for ev in turn["events"]:
        t = ev["type"]
        if t == "draw_pile":
            out.append(f"{who} draws {_c(ev['card'])}")
        elif t == "bonus_draw":
            out.append(f"{who} draws {_c(ev['card'])} (strong bonus)")
        elif t == "take_row":
            out.append(f"{who} takes {_cards(ev['cards'])} from the row (card {ev['index'] + 1})")
        elif t == "lay":
            out.append(f"{who} lays a {ev['match']} match {_cards(ev['cards'])} "
                       f"(#{ev['match_id']})")
        elif t == "upgrade":
            out.append(f"{who} upgrades match #{ev['match_id']} of {names[ev['owner_before']]} "
                       f"to {ev['match']}: {_c(ev['card'])} on {_c(ev['covers'])}")
        elif t == "bonus_mark":
            out.append(f"{who} makes {names[ev['target']]} mark a negative box")
        elif t == "bonus_swap":
            out.append(f"{who} swaps match #{ev['give']} for {names[ev['with_seat']]}'s "
                       f"#{ev['take']}")
        elif t == "discard":
            out.append(f"{who} discards {_c(ev['card'])}")
    return out


def replay_lines(record: dict[str, Any]) -> list[list[str]]:
    """The game as pages of lines: one page per round header and one per turn. The
    players' names are someone else's text: shown, never obeyed (splitnet.text)."""
    names = [shown(p["name"]) for p in record["players"]]
    pages: list[list[str]] = []
    for rnd in record["rounds"]:
        head = [f"=== Round {rnd['number']} · dealer {names[rnd['dealer']]} · first discard "
                f"{_c(rnd['first_discard'])} ==="]
        for s, cards in rnd["hands"].items():
            head.append(f"  {names[int(s)]:14} {_cards(_in_order(cards))}")
        pages.append(head)
        for i, turn in enumerate(rnd["turns"]):
            pages.append([f"turn {i + 1}: " + line if j == 0 else "        " + line
                          for j, line in enumerate(describe_turn(turn, names))])
        end = rnd["end"]
        how = {"out": "goes out", "pile_empty": "draws the last card"}.get(
            end["reason"], "is given up for gone: the round ends as it stands (R8.6)")
        tail = [f"--- {names[end['seat']]} {how} ---"]
        for ll in end["late_lays"]:
            tail.append(f"  {names[ll['seat']]} lays a late {ll['match']} match "
                        f"{_cards(ll['cards'])}")
        for s, m in end["marks"].items():
            left = _cards(end["hands_left"][s]) or "—"
            tail.append(f"  {names[int(s)]:14} +P{m['perfect']} +S{m['strong']} +W{m['weak']} "
                        f"+N{m['negative']}   left: {left}")
        pages.append(tail)
    final = ["=== Final ==="]
    for s, t in sorted(record["totals"].items(), key=lambda kv: -kv[1]["score"]):
        final.append(f"  {names[int(s)]:14} {t['score']:5}")
    pages.append(final)
    return pages



@dataclass
class _Match:
    owner: int
    cards: list[str]
    kind: str


@dataclass
class TableState:
    """Every card on the table after a step, as the record tells it (all open, R8.4)."""

    names: list[str]
    settings: Settings
    round_no: int = 0
    pile: int = 0
    hands: dict[int, list[str]] = field(default_factory=dict)
    row: list[str] = field(default_factory=list)
    matches: dict[int, _Match] = field(default_factory=dict)
    late: list[_Match] = field(default_factory=list)
    #: negative marks from perfect bonuses this round (R5.1), before the round's scoring
    marked: dict[int, int] = field(default_factory=dict)
    #: marks of the rounds scored so far (R7.1)
    marks: dict[int, dict[str, int]] = field(default_factory=dict)
    actor: int | None = None

    def __post_init__(self) -> None:
        self.marks = {s: {"perfect": 0, "strong": 0, "weak": 0, "negative": 0}
                      for s in range(len(self.names))}

    def score(self, seat: int) -> int:
        pad, m = self.settings.pad, self.marks[seat]
        return (pad.value("perfect", m["perfect"]) + pad.value("strong", m["strong"])
                + pad.value("weak", m["weak"]) - pad.value("negative", m["negative"]))

    def _take(self, seat: int, card: str) -> None:
        hand = self.hands.setdefault(seat, [])
        if card in hand:  # the two copies of a face are interchangeable (R1.2)
            hand.remove(card)

    def deal(self, rnd: dict[str, Any]) -> None:
        n = len(self.names)
        self.round_no = rnd["number"]
        self.hands = {int(k): list(v) for k, v in rnd["hands"].items()}
        self.row = [rnd["first_discard"]]
        self.pile = 104 - self.settings.hand_size * n - 1
        self.matches, self.late, self.marked = {}, [], {}
        self.actor = None

    def turn(self, turn: dict[str, Any]) -> None:
        who = turn["seat"]
        self.actor = who
        for ev in turn["events"]:
            t = ev["type"]
            if t in ("draw_pile", "bonus_draw"):
                self.hands.setdefault(who, []).append(ev["card"])
                self.pile -= 1
            elif t == "take_row":
                self.row = self.row[:ev["index"]]
                self.hands.setdefault(who, []).extend(ev["cards"])
            elif t == "lay":
                for c in ev["cards"]:
                    self._take(who, c)
                self.matches[ev["match_id"]] = _Match(who, list(ev["cards"]), ev["match"])
            elif t == "upgrade":
                self._take(who, ev["card"])
                m = self.matches.get(ev["match_id"])
                if m is not None:
                    if ev["covers"] in m.cards:
                        m.cards[m.cards.index(ev["covers"])] = ev["card"]
                    m.kind = ev["match"]
                    if self.settings.upgrade_takes_match:  # R4.3b [decision]
                        m.owner = who
            elif t == "bonus_mark":
                self.marked[ev["target"]] = self.marked.get(ev["target"], 0) + 1
            elif t == "bonus_swap":
                give, take = self.matches.get(ev["give"]), self.matches.get(ev["take"])
                if give is not None and take is not None:
                    give.owner, take.owner = take.owner, give.owner
            elif t == "discard":
                self._take(who, ev["card"])
                self.row.append(ev["card"])

    def end(self, end: dict[str, Any]) -> None:
        self.actor = None
        for ll in end["late_lays"]:
            for c in ll["cards"]:
                self._take(ll["seat"], c)
            self.late.append(_Match(ll["seat"], list(ll["cards"]), ll["match"]))
        self.hands = {int(k): list(v) for k, v in end["hands_left"].items()}
        for k, m in end["marks"].items():
            for box, v in m.items():
                self.marks[int(k)][box] = self.marks[int(k)].get(box, 0) + v
        self.marked = {}

    def render(self) -> str:
        """The table in the plain front end's layout, every hand open."""
        lines = [f"--- Round {self.round_no} of {self.settings.rounds} · draw pile "
                 f"{self.pile} cards ---"]
        row = "  ".join(f"{i + 1}:{_c(c)}" for i, c in enumerate(self.row))
        lines.append(f"Discard row (oldest first): {row or '(empty)'}")
        for s, nm in enumerate(self.names):
            m = self.marks[s]
            mark = ">" if s == self.actor else " "
            extra = (f"  (+{self.marked[s]} negative this round)"
                     if self.marked.get(s) else "")
            lines.append(f"{mark} {s + 1}. {nm}: score {self.score(s)}  [P{m['perfect']} "
                         f"S{m['strong']} W{m['weak']} N{m['negative']}]{extra}")
            hand = _in_order(self.hands.get(s, []))
            lines.append(f"      hand: {_cards(hand) or '(empty)'}")
            for mid, mt in sorted(self.matches.items()):
                if mt.owner == s:
                    lines.append(f"      match {mid}: {mt.kind:7} {_cards(mt.cards)}")
            for mt in self.late:
                if mt.owner == s:
                    lines.append(f"      late:     {mt.kind:7} {_cards(mt.cards)}")
        return "\n".join(lines)


@dataclass
class Step:
    """One page of the replay (a deal, a turn, a round's end, the final standing) and
    the table after it."""

    lines: list[str]
    table: str
    label: str
    round_no: int


def replay_steps(record: dict[str, Any]) -> list[Step]:
    """The pages of :func:`replay_lines`, each with the table after it."""
    names = [shown(p["name"]) for p in record["players"]]  # someone else's text
    pages = replay_lines(record)
    state = TableState(names, Settings.from_dict(record["settings"]))
    steps: list[Step] = []
    k = 0
    for rnd in record["rounds"]:
        state.deal(rnd)
        steps.append(Step(pages[k], state.render(), f"round {rnd['number']} · the deal",
                          rnd["number"]))
        k += 1
        for i, turn in enumerate(rnd["turns"]):
            state.turn(turn)
            steps.append(Step(pages[k], state.render(),
                              f"round {rnd['number']} · turn {i + 1} of {len(rnd['turns'])}",
                              rnd["number"]))
            k += 1
        state.end(rnd["end"])
        steps.append(Step(pages[k], state.render(), f"round {rnd['number']} · the end",
                          rnd["number"]))
        k += 1
    steps.append(Step(pages[k], state.render(), "final standing",
                      steps[-1].round_no if steps else 0))
    return steps
