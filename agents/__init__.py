"""Agents: bearer tokens and teams behind the AgentDirectory port."""
