# The lesson's batcher unchanged: set_result on a cancelled future raises and stops delivery.
from labsupport.batching.lesson import LessonBatcher


class CancelSafeBatcher(LessonBatcher):
    pass
