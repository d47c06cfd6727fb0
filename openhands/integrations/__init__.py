"""Git-provider integrations: tokens, the GitService seam, the GitHub/GitLab/Bitbucket
services and ProviderHandler (see README.md)."""
