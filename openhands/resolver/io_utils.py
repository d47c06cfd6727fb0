"""Reading ``output.jsonl`` back."""

from __future__ import annotations

from collections.abc import Iterator

from openhands.resolver.resolver_output import ResolverOutput


def load_all_resolver_outputs(output_jsonl: str) -> Iterator[ResolverOutput]:
    """Each record of ``output_jsonl``, in file order, read lazily."""
    with open(output_jsonl, encoding="utf-8") as lines:
        for line in lines:
            yield ResolverOutput.model_validate_json(line)


def load_single_resolver_output(output_jsonl: str, issue_number: int) -> ResolverOutput:
    """The first record for ``issue_number``; ``ValueError`` when there is none."""
    for output in load_all_resolver_outputs(output_jsonl):
        if output.issue.number == issue_number:
            return output
    raise ValueError(f"Issue number {issue_number} not found in {output_jsonl}")
