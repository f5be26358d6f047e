"""The refusals of opening a class, of a locked class, and of removing a learner.

Each is a `ClassRefused` (app/classes/errors.py), with a message that names only what the
server itself validated, so a page or the API can show it as it is. The API answers them
401 (`InstructorKeyMissing`, with `WWW-Authenticate: Bearer`), 403 (`InstructorKeyWrong`),
423 (`ClassLocked`), 404 (`UnknownLearner`) and 409 (`AmbiguousLearner`, the dashboard's
short id naming two learners); the pages answer the same statuses.
"""

from __future__ import annotations

from app.classes.errors import ClassRefused


class InstructorKeyMissing(ClassRefused):
    """Opening a class on a server whose instructor key is set, without a key."""

    def __init__(self) -> None:
        super().__init__(
            "Opening a class on this server takes the instructor key"
            " (`Authorization: Bearer <key>`); no class was opened."
        )


class InstructorKeyWrong(ClassRefused):
    """Opening a class with a key that is not the server's instructor key."""

    def __init__(self) -> None:
        super().__init__("That is not this server's instructor key; no class was opened.")


class ClassLocked(ClassRefused):
    """A learner new to a class the instructor has locked."""

    def __init__(self, code: str) -> None:
        super().__init__(
            f"Class {code} is closed to new learners: the instructor has locked it. Learners"
            " already in it can still change their answers."
        )
        self.code = code


class UnknownLearner(ClassRefused):
    """Removing a learner who has no prediction in the class."""

    def __init__(self, code: str) -> None:
        super().__init__(f"Class {code} has no learner with that id: nothing was removed.")
        self.code = code


class AmbiguousLearner(ClassRefused):
    """A short id that more than one learner of the class starts with."""

    def __init__(self, code: str, short: str) -> None:
        # `short` is validated (SHORT_ID in app.classes.service) before it is named here.
        super().__init__(
            f"More than one learner of class {code} has the short id {short}: nothing was"
            " removed. Remove them through the API, by their full ids."
        )
