"""Allocation of attacks to the models of the target, as positions on two lines of wounds.

The defender's order is fixed (docs/rulings/wh40k10e-combat.md R1): the main models first,
then the non-CHARACTER groups in the order given (a sergeant...), forming the **bodyguard
line**; the CHARACTER groups (attached Leaders) form the **character line**, which takes
attacks only once the bodyguard line is destroyed, or from Precision attacks (RULINGS 14,
[L2161–L2173], [L3238–L3246]).

A line's state is one integer, the wounds lost along it: models before the position are
destroyed, the model at the position has lost ``position - start`` wounds. Because a model
that has lost wounds (or been allocated an attack) must take the next attack [L1704–L1707],
and excess damage from a normal attack is lost [L1788–L1796], a normal attack never moves past
the end of the model it hits; mortal wounds spill over one at a time [L1816–L1824].
The exact and the live paths both move through these functions. Since a line's position is
exactly the wounds it has lost, the damage of an activation is ``b + c``.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.engine.wh40k10e.profiles import Target

__all__ = ["MAIN_GROUP", "Layout", "ModelSlot"]

MAIN_GROUP = "main"


@dataclass(frozen=True, slots=True)
class ModelSlot:
    """One model of the target on its line."""

    group: str
    wounds: int
    save: int
    invulnerable_save: int | None
    feel_no_pain: int | None
    start: int
    character: bool

    @property
    def end(self) -> int:
        return self.start + self.wounds


class Layout:
    """The allocation lines of a target unit. Positions are ``(b, c)``."""

    def __init__(self, target: Target) -> None:
        body: list[ModelSlot] = []
        chars: list[ModelSlot] = []
        pos_b = 0
        pos_c = 0

        def add(
            group: str, n: int, w: int, sv: int, inv: int | None, fnp: int | None, character: bool
        ) -> None:
            nonlocal pos_b, pos_c
            for _ in range(n):
                if character:
                    chars.append(ModelSlot(group, w, sv, inv, fnp, pos_c, True))
                    pos_c += w
                else:
                    body.append(ModelSlot(group, w, sv, inv, fnp, pos_b, False))
                    pos_b += w

        add(
            MAIN_GROUP,
            target.models,
            target.wounds,
            target.save,
            target.invulnerable_save,
            target.feel_no_pain,
            False,
        )
        for g in target.groups:
            if not g.is_character:
                add(g.name, g.models, g.wounds, g.save, g.invulnerable_save, g.feel_no_pain, False)
        for g in target.groups:
            if g.is_character:
                add(g.name, g.models, g.wounds, g.save, g.invulnerable_save, g.feel_no_pain, True)
        self.bodyguard: tuple[ModelSlot, ...] = tuple(body)
        self.characters: tuple[ModelSlot, ...] = tuple(chars)
        self.B = pos_b
        self.C = pos_c
        self.groups: tuple[str, ...] = tuple(
            dict.fromkeys(s.group for s in self.bodyguard + self.characters)
        )
        self._b_at = [i for i, s in enumerate(body) for _ in range(s.wounds)]
        self._c_at = [i for i, s in enumerate(chars) for _ in range(s.wounds)]
        self._b_end = [body[i].end for i in self._b_at]
        self._c_end = [chars[i].end for i in self._c_at]
        self._b_dead = [sum(1 for s in body if s.end <= p) for p in range(self.B + 1)]
        self._c_dead = [sum(1 for s in chars if s.end <= p) for p in range(self.C + 1)]

    @property
    def total_wounds(self) -> int:
        return self.B + self.C

    @property
    def total_models(self) -> int:
        return len(self.bodyguard) + len(self.characters)

    def slot_for_attack(self, b: int, c: int, precision: bool) -> tuple[int, ModelSlot] | None:
        """(line, model) that takes the next attack, or ``None`` when the unit is destroyed.
        Line 0 is the bodyguard line, 1 the character line."""
        body_alive = b < self.B
        char_alive = c < self.C
        if body_alive and not (precision and char_alive):
            return 0, self.bodyguard[self._b_at[b]]
        if char_alive:
            return 1, self.characters[self._c_at[c]]
        return None

    def slot_for_mortal(self, b: int, c: int) -> tuple[int, ModelSlot] | None:
        """(line, model) that takes the next mortal wound."""
        return self.slot_for_attack(b, c, precision=False)

    def after_damage(self, b: int, c: int, line: int, loss: int) -> tuple[int, int]:
        """Position after the model at the head of ``line`` loses ``loss`` wounds (capped at
        its remaining wounds: excess damage from one attack is lost)."""
        if line == 0:
            end = self._b_end[b]
            return (b + loss if b + loss < end else end), c
        end = self._c_end[c]
        return b, (c + loss if c + loss < end else end)

    def after_mortal(self, b: int, c: int, amount: int) -> tuple[int, int]:
        """Position after ``amount`` mortal wounds that are not negated (they spill over)."""
        nb = min(b + amount, self.B)
        rest = amount - (nb - b)
        return nb, min(c + rest, self.C)

    def wiped(self, b: int, c: int) -> bool:
        return b >= self.B and c >= self.C

    def models_destroyed(self, b: int, c: int) -> int:
        return self._b_dead[b] + self._c_dead[c]

    def destroyed_by_group(self, b: int, c: int) -> dict[str, int]:
        out = dict.fromkeys(self.groups, 0)
        for s in self.bodyguard:
            if s.end <= b:
                out[s.group] += 1
        for s in self.characters:
            if s.end <= c:
                out[s.group] += 1
        return out

    def group_sizes(self) -> dict[str, int]:
        out = dict.fromkeys(self.groups, 0)
        for s in self.bodyguard + self.characters:
            out[s.group] += 1
        return out

    def wounds_remaining(self, b: int, c: int) -> list[tuple[ModelSlot, int]]:
        """Every model with its remaining wounds, in allocation order."""
        out = [(s, max(0, s.end - max(b, s.start))) for s in self.bodyguard]
        out += [(s, max(0, s.end - max(c, s.start))) for s in self.characters]
        return out

    def uniform_feel_no_pain(self) -> bool:
        """True when every model has the same Feel No Pain (or none)."""
        values = {s.feel_no_pain for s in self.bodyguard + self.characters}
        return len(values) == 1
