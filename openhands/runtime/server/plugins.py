"""Starting the requested plugins inside the sandbox (runtime.md §3.3 steps 6–7)."""

from __future__ import annotations

import asyncio

from openhands.core.logger import openhands_logger as logger
from openhands.runtime.plugins.agent_skills.plugin import KERNEL_IMPORT, AgentSkillsPlugin
from openhands.runtime.plugins.base import Plugin
from openhands.runtime.plugins.jupyter.kernel import IPythonKernel
from openhands.runtime.plugins.jupyter.plugin import JupyterPlugin
from openhands.runtime.plugins.vscode.plugin import VSCodePlugin

_FACTORIES: dict[str, type[Plugin]] = {
    JupyterPlugin.name: JupyterPlugin,
    AgentSkillsPlugin.name: AgentSkillsPlugin,
    VSCodePlugin.name: VSCodePlugin,
}


async def start_plugins(
    names: list[str],
    username: str,
    work_dir: str,
    bash_cwd: str,
    timeout: float,
    early_kernel: IPythonKernel | None = None,
) -> dict[str, Plugin]:
    """Initialise the plugins together within ``timeout``; any failure stops the start-up.

    ``early_kernel``: the Jupyter kernel already launched by the server's entry point."""
    plugins = {name: _FACTORIES[name]() for name in dict.fromkeys(names) if name in _FACTORIES}
    if early_kernel is not None:
        if JupyterPlugin.name in plugins:
            plugins[JupyterPlugin.name] = JupyterPlugin(kernel=early_kernel)
        else:
            early_kernel.shutdown()
    skipped = [name for name in names if name not in _FACTORIES]
    if skipped:
        logger.warning("Plugins not available in this sandbox: %s", ", ".join(skipped))
    try:
        await asyncio.wait_for(
            asyncio.gather(*(p.initialize(username, work_dir) for p in plugins.values())),
            timeout=timeout,
        )
    except BaseException:
        close_plugins(plugins)
        raise
    jupyter = plugins.get(JupyterPlugin.name)
    if isinstance(jupyter, JupyterPlugin):
        await jupyter.sync_cwd(bash_cwd)
        if AgentSkillsPlugin.name in plugins:
            printed = await jupyter.run_code(KERNEL_IMPORT)
            if printed.strip():
                raise RuntimeError(f"Importing the agent skills into the kernel failed:\n{printed}")
    return plugins


def close_plugins(plugins: dict[str, Plugin]) -> None:
    for plugin in plugins.values():
        try:
            plugin.close()
        except Exception as exc:  # keep closing the others
            logger.warning("Closing plugin %s failed: %s", plugin.name, exc)
