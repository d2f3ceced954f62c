"""Studies of the AI's play: tournaments between players (:mod:`.tournament`), the
fair-komi studies from self-play (:mod:`.komi`) and from the network's value head
(:mod:`.komi_net`), Elo and Wilson intervals (:mod:`.elo`), and SVG line plots
(:mod:`.plots`). ``hexstones tournament`` and ``hexstones komi`` are the front doors.

Lab tooling, not the player: :mod:`hexstones.ai` never imports it.
"""
