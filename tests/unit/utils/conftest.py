from tests.support.fixtures import scripted_llm  # noqa: F401
