import Testing
@testable import BlockerCore

@Suite struct LogExerciseTests {
    let allowed: ClosedRange<UInt32> = 1...1000
    let pushups = Exercise(name: "pushups", perRep: 30_000)
    let squats = Exercise(name: "squats", perRep: 20_000)

    func answered(_ exercises: [Exercise], balanceMs: Milliseconds = 900_000) -> LogExerciseForm {
        var form = LogExerciseForm()
        form.statusArrived(exercises: exercises, balanceMs: balanceMs)
        return form
    }

    @Test func theResultLineSaysWhatWasEarnedAndTheBalance() {
        #expect(LogExercise.earned(earnedMs: 600_000, balanceMs: 1_500_000) == "Earned 10m 00s — balance 25m 00s")
        var form = answered([pushups])
        #expect(form.earned(earnedMs: 30_000, balanceMs: 930_000) == "Earned 30s — balance 15m 30s")
        #expect(form.balanceLine == "Balance 15m 30s")
    }

    @Test func theChosenExerciseIsCreditedWhileBlockerdListsIt() {
        let form = answered([pushups, squats])
        #expect(form.request(reps: "20", chosen: "squats", allowed: allowed)
            == .success(EarnRequest(exercise: "squats", reps: 20)))
        // Gone after a reload, or nothing chosen: the first blockerd lists.
        #expect(form.request(reps: "20", chosen: "lunges", allowed: allowed)
            == .success(EarnRequest(exercise: "pushups", reps: 20)))
        #expect(form.request(reps: " 5\n", chosen: nil, allowed: allowed)
            == .success(EarnRequest(exercise: "pushups", reps: 5)))
        // None known (blockerd not asked yet): "" lets blockerd pick the only one, or name them.
        #expect(LogExerciseForm().request(reps: "5", chosen: "squats", allowed: allowed)
            == .success(EarnRequest(exercise: "", reps: 5)))
    }

    @Test func repsOutsideWhatBlockerdAcceptsAreRefusedBeforeAsking() {
        let form = answered([pushups])
        #expect(form.request(reps: "0", chosen: nil, allowed: allowed) == .failure(.outOfRange(allowed)))
        #expect(form.request(reps: "1001", chosen: nil, allowed: allowed) == .failure(.outOfRange(allowed)))
        #expect(form.request(reps: "", chosen: nil, allowed: allowed) == .failure(.empty))
        #expect(form.request(reps: "ten", chosen: nil, allowed: allowed) == .failure(.notANumber("ten")))
        #expect(RepsInputError.outOfRange(allowed).description == "Reps go from 1 to 1000")
    }

    @Test func blockerdNotRunningIsSaidWithItsFixAndAskedAgainOnEarn() {
        var form = answered([pushups, squats])
        #expect(!form.needsStatus)
        #expect(form.hint == .init(text: "Type your reps, then press Enter", isProblem: false))
        let why = "blockerd is not running — start it with: systemctl --user start blockerd"
        form.unreachable(why)
        #expect(form.hint == .init(text: why, isProblem: true))
        #expect(form.needsStatus)
        // The balance it had is not trusted any more; the exercises stay for the form.
        #expect(form.balanceLine == "")
        #expect(form.exercises == [pushups, squats])
        form.statusArrived(exercises: [pushups], balanceMs: 0)
        #expect(!form.needsStatus)
        #expect(form.hint.isProblem == false)
        #expect(form.balanceLine == "Balance 0s")
    }

    @Test func nothingKnownAtFirstMeansAskingBlockerd() {
        let form = LogExerciseForm()
        #expect(form.needsStatus)
        #expect(form.balanceLine == "")
        #expect(form.hint.isProblem == false)
    }

    @Test func aBlockerdWithNoExercisesSaysWhereToAddOne() {
        let form = answered([])
        #expect(form.hint.isProblem)
        #expect(form.hint.text.contains("under [earn] in blocker.toml"))
        #expect(form.hint.text.contains("blockerctl reload"))
    }
}

/// Issue 20, row 10: a form's retry after a timeout keeps the request id.
@Suite struct EarnRetryTests {
    @Test func theSameRequestUnansweredKeepsItsIDAnAnswerOrAnotherRequestDoesNot() {
        var retry = EarnRetry()
        var made = 0
        func new() -> String { made += 1; return "id\(made)" }
        let twenty = EarnRequest(exercise: "pushups", reps: 20)
        #expect(retry.id(for: twenty, new: new) == "id1")
        #expect(retry.id(for: twenty, new: new) == "id1")                     // timed out, sent again
        #expect(retry.id(for: EarnRequest(exercise: "pushups", reps: 25), new: new) == "id2")
        retry.answered()
        #expect(retry.id(for: EarnRequest(exercise: "pushups", reps: 25), new: new) == "id3")
    }
}
