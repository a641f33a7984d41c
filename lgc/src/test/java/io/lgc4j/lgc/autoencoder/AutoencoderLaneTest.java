package io.lgc4j.lgc.autoencoder;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lane runs every use in submission order on one thread of its own, lets the owner go on after a submit, and a
 * failed task fails every later use, naming what failed.
 */
class AutoencoderLaneTest {

    @Test
    void shouldRunSubmittedAndCalledTasksInOrderOnOneThreadWhileTheOwnerGoesOn() throws InterruptedException {
        AutoencoderLane lane = new AutoencoderLane("lgc-ae-test");
        List<String> done = Collections.synchronizedList(new ArrayList<>());
        List<String> threads = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch release = new CountDownLatch(1);
        AutoencoderLane.Ticket first = lane.submit("train 0", () -> {
            await(release);
            threads.add(Thread.currentThread().getName());
            done.add("train 0");
        });
        lane.submit("train 1", () -> {
            threads.add(Thread.currentThread().getName());
            done.add("train 1");
        });
        done.add("owner"); // the owner was not held up by the training
        release.countDown();
        first.await();
        assertTrue(done.indexOf("train 0") > done.indexOf("owner"), done.toString());
        assertEquals(List.of("lgc-ae-test"), threads.stream().distinct().toList());
        String called = lane.call("decode", () -> {
            threads.add(Thread.currentThread().getName());
            return "decoded after " + done.get(done.size() - 1);
        });
        assertEquals("decoded after train 1", called);
        assertEquals(List.of("lgc-ae-test"), threads.stream().distinct().toList());
    }

    @Test
    void awaitStepShouldWaitForThatStepsWorkAndNotForLaterSteps() {
        AutoencoderLane lane = new AutoencoderLane("lgc-ae-test");
        List<String> done = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch second = new CountDownLatch(1);
        lane.submitStep(3, "training step 3", () -> done.add("step 3"));
        lane.submitStep(4, "training step 4", () -> {
            await(second);
            done.add("step 4");
        });
        lane.awaitStep(2); // nothing submitted up to step 2: returns at once
        lane.awaitStep(3); // step 4's training still blocks the lane
        assertEquals(List.of("step 3"), done);
        second.countDown();
        lane.awaitStep(10);
        assertEquals(List.of("step 3", "step 4"), done);
    }

    @Test
    void aFailedTaskShouldFailEveryLaterUseNamingWhatFailedAndRunNothingAfterIt() {
        AutoencoderLane lane = new AutoencoderLane("lgc-ae-test");
        List<String> done = Collections.synchronizedList(new ArrayList<>());
        AutoencoderLane.Ticket failing = lane.submit("the autoencoder's training step 7", () -> {
            throw new IllegalArgumentException("a compact vector of length 3, expected 4");
        });
        AutoencoderLane.Ticket after = null;
        try {
            after = lane.submit("the autoencoder's training step 8", () -> done.add("step 8"));
        } catch (IllegalStateException alreadyFailed) {
            // the failure may already be known when the next task is submitted
        }
        String expected = "the autoencoder failed in the autoencoder's training step 7:"
                + " java.lang.IllegalArgumentException: a compact vector of length 3, expected 4";
        assertEquals(expected, assertThrows(IllegalStateException.class, failing::await).getMessage());
        if (after != null) {
            assertEquals(expected, assertThrows(IllegalStateException.class, after::await).getMessage());
        }
        assertEquals(expected, assertThrows(IllegalStateException.class,
                () -> lane.call("decode", () -> done.add("decode"))).getMessage());
        assertEquals(expected, assertThrows(IllegalStateException.class, lane::drain).getMessage());
        assertEquals(List.of(), done);
    }

    @Test
    void aUseThatThrowsShouldThrowToItsCallerAndLeaveTheLaneWorking() {
        AutoencoderLane lane = new AutoencoderLane("lgc-ae-test");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> lane.call("decode", () -> {
            throw new IllegalArgumentException("rank must be in [0, 4), got 5");
        }));
        assertEquals("rank must be in [0, 4), got 5", e.getMessage());
        assertEquals(3, lane.call("encode", () -> 3));
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(30, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
