"""The sandbox browser: Playwright driving Debian's Chromium (runtime.md §8).

Modules: ``handler`` (browse actions → observations), ``env`` (the Chromium lifecycle and one
step), ``actions`` (the action-code parser), ``page_scripts`` (JavaScript run in the page),
``axtree`` and ``markdown`` (page text for the agent), ``content`` (the observation text).
Nothing here imports Playwright until the first browse action starts the browser.
"""
