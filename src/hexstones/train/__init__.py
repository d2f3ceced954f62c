"""Training the networks of :mod:`hexstones.ai.net` (PyTorch: the ``train`` extra).

Expert iteration, then self-play: :mod:`.teacher` has the classic MCTS play itself and
keeps every move's visit counts; :mod:`.data` turns game records (the teacher's or
self-play's, one format) into training positions; :mod:`.selfplay` plays the network;
:mod:`.loop` runs the iterations with checkpoints that survive being killed at any
moment. ``hexstones train`` (:mod:`hexstones.commands.train`) is the front door.
Only this package imports torch.
"""
