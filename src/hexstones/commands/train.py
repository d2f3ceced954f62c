"""``hexstones train GAME``: train the game's policy/value network (needs the ``train`` extra)."""

from __future__ import annotations

import argparse
import shlex
import sys


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give sides as 5,7") from None
    if not sizes:
        raise argparse.ArgumentTypeError(f"{text!r} holds no side")
    return sizes


def _balance_range(text: str) -> list[int]:
    try:
        low, high = (int(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give the balance range as LOW:HIGH (write a negative one as "
            f"--balance=-6:6)") from None
    return [low, high]


HELP = "train a game's policy/value network (expert iteration, then self-play)"
DESCRIPTION = (
    "Iteration 0 learns from teacher games of the classic MCTS (read from --teacher-dir, or generated"
    " first with --teacher-games); each later iteration adds self-play games of the network. Writes "
    "OUT/GAME.npz, per-iteration weights, loss.svg, strength.svg and a checkpoint that --resume "
    "continues from, even after the run was killed. Needs PyTorch: pip install 'hexstones[train]'."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from hexstones.commands import add_game
    from hexstones.studies.tournament import BACKENDS

    add_game(p)
    p.add_argument("--sizes", type=_sizes, help="several sides, one network: 5,7")
    p.add_argument("--iterations", type=int,
                   help="iterations in all (default 3; a --resume without it keeps the run's)")
    p.add_argument("--out", default="training", help="output folder (default ./training)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out")
    p.add_argument("--backend", choices=BACKENDS, default="local",
                   help="where games are played: local processes, serial, or ray")
    p.add_argument("--workers", type=int, help="game-playing processes (default: the cores)")
    p.add_argument("--ray-address", help="a Ray cluster (default: a local Ray)")
    p.add_argument("--device", default="cpu", help="torch device: cpu, cuda, cuda:1 ...")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--games", type=int, default=16, help="self-play games per iteration")
    p.add_argument("--simulations", type=int, default=64, help="search simulations per self-play move")
    p.add_argument("--steps", type=int, default=400, help="training steps per iteration")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--buffer-games", type=int, default=4000,
                   help="self-play games the replay buffer keeps (it keeps every teacher game)")
    p.add_argument("--teacher-share", type=float, default=0.5,
                   help="share of each batch drawn from teacher games once there are "
                        "self-play games too (default 0.5)")
    p.add_argument("--policy-power", type=float, default=1.0,
                   help="policy target: the root's visit shares to this power, normalised "
                        "(default 1: as they are; 2: sharper)")
    p.add_argument("--symmetry-weight", type=float,
                   help="loss weight that pulls the value of each position and of the same "
                        "position turned by another symmetry together (default 4; 0: off; "
                        "a --resume may change it, and without it keeps the run's)")
    p.add_argument("--teacher-dir", help="folder of GAME-SIZE.jsonl teacher games (default OUT/teacher)")
    p.add_argument("--teacher-games", type=int, default=0,
                   help="generate this many teacher games per side first (classic MCTS)")
    p.add_argument("--teacher-iterations", type=int, default=800,
                   help="classic MCTS iterations per teacher move (default 800)")
    p.add_argument("--checkpoint-seconds", type=float, default=60.0,
                   help="least time between two checkpoints within an iteration (default 60; "
                        "also at least 9 times as long as the last one took to write)")
    p.add_argument("--channels", type=int, help="network width (default 32)")
    p.add_argument("--blocks", type=int, help="residual blocks (default 4)")
    p.add_argument("--balance", type=_balance_range, metavar="LOW:HIGH",
                   help="draw each new game's balance (komi; Droched: black stones in the "
                        "prison) evenly from LOW to HIGH (default: the game's default, varied "
                        "by up to 6 either way in 70%% of the games)")
    p.add_argument("--relabel", type=float, metavar="SHARE",
                   help="Keil, Dehil: give this share of the training positions of finished "
                        "games another komi from the balance range, with the value and score "
                        "that komi gives their final position, so the value head learns what "
                        "komi is worth from every game (default 0; a --resume may change it, "
                        "and without it keeps the run's)")
    p.add_argument("--resign", metavar="BELOW[:TURNS]",
                   help="end a self-play game when the mover's search gives it a win chance "
                        "below BELOW (e.g. 0.05) on TURNS of its turns in a row (default 3): "
                        "lost Droched games otherwise run to the move limit. Resigned games "
                        "teach the value, not the score or ownership (a --resume may change "
                        "it, and without it keeps the run's)")
    p.add_argument("--resign-check", type=int, metavar="N",
                   help="with --resign: play every Nth self-play game of an iteration out, "
                        "noting who would have resigned; the progress line counts how often "
                        "that player still won (default 10; 0: none)")
    p.add_argument("--init", metavar="WEIGHTS|shipped",
                   help="start from these weights (a .npz that hexstones train wrote, or "
                        "'shipped': the game's shipped network) instead of random ones; "
                        "the network keeps their shape (--channels, --blocks must agree)")


def run(args: argparse.Namespace) -> int:
    try:
        from hexstones.train import loop
    except ImportError as exc:
        print(f"hexstones train: needs PyTorch ({exc}): pip install 'hexstones[train]'",
              file=sys.stderr)
        return 1
    from hexstones.commands.tournament import parse_resign
    from hexstones.games import game_class
    from hexstones.studies import tournament

    try:
        resign = None if args.resign is None else list(parse_resign(args.resign))
    except ValueError as exc:
        print(f"hexstones train: {exc}", file=sys.stderr)
        return 2
    sizes = args.sizes or [args.size if args.size is not None else game_class(args.game).default_size]
    settings = loop.Settings(
        game=args.game, sizes=sizes, out=args.out,
        iterations=loop.Settings.iterations if args.iterations is None else args.iterations, seed=args.seed,
        device=args.device, backend=args.backend, workers=args.workers,
        ray_address=args.ray_address, games=args.games, simulations=args.simulations,
        steps=args.steps, batch=args.batch, lr=args.lr, buffer_games=args.buffer_games,
        teacher_share=args.teacher_share, policy_power=args.policy_power,
        symmetry_weight=(loop.Settings.symmetry_weight if args.symmetry_weight is None
                         else args.symmetry_weight),
        teacher_dir=args.teacher_dir, teacher_games=args.teacher_games,
        teacher_iterations=args.teacher_iterations, checkpoint_seconds=args.checkpoint_seconds,
        channels=args.channels, blocks=args.blocks, init=args.init, balance_range=args.balance,
        relabel_share=loop.Settings.relabel_share if args.relabel is None else args.relabel,
        resign=resign,
        resign_check=(loop.Settings.resign_check if args.resign_check is None
                      else args.resign_check),
        command=shlex.join(["hexstones"] + sys.argv[1:]))
    loop.configure_threads()
    try:
        # A resume keeps the run's own value of these unless the command line gives one.
        given = {"iterations": args.iterations, "symmetry_weight": args.symmetry_weight,
                 "balance_range": args.balance, "relabel_share": args.relabel,
                 "resign": args.resign, "resign_check": args.resign_check}
        kept = {name for name, value in given.items() if value is None}
        net = loop.train(settings, resume=args.resume, changes=set(loop.RESUMABLE) - kept)
    except ValueError as exc:
        print(f"hexstones train: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, tournament.Interrupted):  # Interrupted: Ctrl-C during teacher games
        print("\nhexstones train: interrupted; --resume continues from the last checkpoint",
              file=sys.stderr)
        return 130
    print(f"{net}: {args.out}/{args.game}.npz")
    return 0
