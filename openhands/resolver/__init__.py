"""The issue resolver: turn a GitHub/GitLab/Bitbucket issue or PR into a patch, then a PR."""
