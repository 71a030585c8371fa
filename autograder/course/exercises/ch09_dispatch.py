"""Chapter 9 exercises: the pieces of the dispatcher and of the logging mode. Every right
answer is what torch 2.13 does. (Being written: see the chapter's issue, 44.)"""

from __future__ import annotations

CHAPTER = "ch09_dispatch"
