"""The static leaderboard site: collect views from the repository, render pages and exports."""
