"""Print one resolver result: ``python -m openhands.resolver.visualize_resolver_output
--issue-number N [--output-dir output] [--vis-method json]``."""

from __future__ import annotations

import argparse
import os

from openhands.resolver.io_utils import load_single_resolver_output

VIS_METHODS = ("json",)


def visualize_resolver_output(issue_number: int, output_dir: str, vis_method: str) -> None:
    """Print record ``issue_number`` of ``<output_dir>/output.jsonl`` (as indented JSON)."""
    output = load_single_resolver_output(os.path.join(output_dir, "output.jsonl"), issue_number)
    if vis_method != "json":
        raise ValueError(f"Invalid visualization method: {vis_method}")
    print(output.model_dump_json(indent=4))


def main() -> None:
    parser = argparse.ArgumentParser(description="Show one result of the issue resolver.")
    parser.add_argument("--issue-number", type=int, required=True, help="Issue number to show.")
    parser.add_argument(
        "--output-dir", type=str, default="output", help="The resolver's output directory."
    )
    parser.add_argument(
        "--vis-method",
        type=str,
        default="json",
        choices=list(VIS_METHODS),
        help="How to show the result [json].",
    )
    args = parser.parse_args()
    visualize_resolver_output(args.issue_number, args.output_dir, args.vis_method)


if __name__ == "__main__":
    from openhands.resolver.cli_errors import run_cli

    run_cli(main)
