"""Context Retrieval: give an LLM assistant only the devices and commands an utterance needs."""

DOMAIN = "context_retrieval"
