"""Memory over git time: what an agent remembered at any commit, what changed, and why it shifted."""
