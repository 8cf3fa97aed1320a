import StatecraftPrimitives

// A subscription built from steps (Subscription.swift): what a `select` builds from, the step most
// have, and the receivers that keep what they select until a round's second phase hands it over.
// One `select` of the state, followed by `skipRepeats()` or not, runs none of it: a
// `SelectingEntry` (Entries.swift) runs it in one object, whose steps a closure subscription's
// are (`ReceivingSteps`, at the end); any other runs its first step in a `StepsCall`
// (Entries.swift).

/// A step that selects a value from each value it receives and passes it on unless it repeats
/// the one selected before: `select` followed by `skip(when:)`, the steps most subscriptions
/// have, and `skip(when:)` alone (selecting the value itself).
///
/// One object holds the closures and the value the step saw last, and the step's closure
/// captures only the object, so that it needs no context of its own: one allocation per step.
/// The closures are constants, called without retaining them. The class is generic over the
/// optional of the selected value (`Previous` is `Value?`), so that freeing it destroys that
/// value with the type's own functions: a class generic over `Value` would look
/// `Optional<Value>` up at run time to free its field. Only the main actor touches it.
@usableFromInline
final class SkippingStep<Input, Previous: PreviousSlot> {
  @usableFromInline let _select: (Input) -> Previous.Value
  @usableFromInline let _isRepeat: (Previous.Value, Previous.Value) -> Bool
  @usableFromInline let _downstream: (Previous.Value) -> Void
  // Unchecked: touched only by `receive`, on the main actor, which never overlaps itself for one
  // step; a checked access costs more than the comparison.
  @exclusivity(unchecked) @usableFromInline var _previous: Previous

  @usableFromInline
  init(
    select: @escaping (Input) -> Previous.Value,
    isRepeat: @escaping (Previous.Value, Previous.Value) -> Bool,
    downstream: @escaping (Previous.Value) -> Void
  ) {
    _select = select
    _isRepeat = isRepeat
    _downstream = downstream
    _previous = .none
  }

  /// Selects from `input`, keeps the value, and passes it on unless it repeats the last one.
  @inlinable
  func receive(_ input: Input) {
    let new = _select(input)
    var old = Previous(new)
    swap(&old, &_previous)
    if let old = old.slotValue, _isRepeat(old, new) { return }
    _downstream(new)
  }
}

/// What a `select` builds from: the step before it and the selector, in one object, which the
/// closures of the subscription it returns capture alone, so that they need no context.
@usableFromInline
final class SelectSource<State, Substate> {
  @usableFromInline let _attach: (_ downstream: @escaping (State) -> Void) -> Void
  @usableFromInline let _selector: (State) -> Substate

  @usableFromInline
  init(
    attach: @escaping (_ downstream: @escaping (State) -> Void) -> Void,
    selector: @escaping (State) -> Substate
  ) {
    _attach = attach
    _selector = selector
  }

  @inlinable
  func attach(_ downstream: @escaping (Substate) -> Void) {
    let selector = _selector
    _attach { downstream(selector($0)) }
  }

  /// The selection followed by `skip(when: isRepeat)`, as one step.
  @inlinable
  func thenSkip(_ isRepeat: @escaping (Substate, Substate) -> Bool) -> Subscription<Substate> {
    Subscription<Substate> { [self] downstream in
      let step = SkippingStep<State, Substate?>(
        select: _selector, isRepeat: isRepeat, downstream: downstream)
      _attach { step.receive($0) }
    }
  }
}

/// The values a subscription's steps selected for the subscriber in a round's first phase.
///
/// Kept until its second phase hands them over (C13): usually one, several when a step emits
/// more than one value for a state (``Subscription/pulses(_:)``). Touched only on the main queue.
@usableFromInline @frozen
struct HeldValues<Value>: HeldStorage {
  @usableFromInline var _first: Value?
  @usableFromInline var _rest: [Value] = []

  @inlinable
  init() {}

  @inlinable
  mutating func append(_ value: Value) {
    if case .none = _first { _first = value } else { _rest.append(value) }
  }

  /// Removes the values and calls `deliver` with each, in the order they were held.
  @inlinable
  mutating func deliver(_ deliver: (Value) -> Void) {
    guard let first = _first.take() else { return }
    deliver(first)
    if !_rest.isEmpty {
      let rest = _rest
      _rest = []
      for value in rest { deliver(value) }
    }
  }
}

/// ``HeldValues``, as the receivers' type of what they hold: generic over it, not over its `Value`
/// alone, a class whose field is `HeldValues<Value>` looks that type up at run time to free it.
@usableFromInline
protocol HeldStorage {
  associatedtype Value
  init()
  mutating func append(_ value: Value)
  mutating func deliver(_ deliver: (Value) -> Void)
}

extension HeldStorage {
  /// Keeps `value` for a round's second phase, and tells the call that ran the steps so
  /// (`HeldMark`): what a receiver does as the last step of a subscription.
  @inlinable
  mutating func hold(_ value: Value) {
    append(value)
    HeldMark.set()
  }
}

/// The last step of a subscriber object's subscription: holds the subscriber weakly and the
/// values its steps selected until the subscriber receives them.
///
/// The last step calls ``hold(_:)`` through a closure that captures only this object, so the
/// closure needs no context of its own: one allocation less per subscription than a closure
/// capturing the subscriber weakly. Used only on the main queue.
@usableFromInline
final class SubscriberReceiver<Subscriber: StoreSubscriber, Held: HeldStorage>
where Held.Value == Subscriber.StoreSubscriberStateType {
  @usableFromInline weak let _subscriber: Subscriber?
  // Unchecked: touched only on the main queue, by `hold` and `deliverHeld`, which never overlap;
  // the run-time checks are a large part of a notification (Benchmarks/README.md, row c).
  @exclusivity(unchecked) @usableFromInline var _held = Held()

  @usableFromInline
  init(_ subscriber: Subscriber) {
    _subscriber = subscriber
  }

  /// Keeps `value` for ``deliverHeld(_:)``; the last step of the subscription.
  @MainActor
  @inlinable
  func hold(_ value: Subscriber.StoreSubscriberStateType) {
    _held.hold(value)
  }

  /// Hands the held values to the subscriber, or marks the subscription, `status`, gone if the
  /// subscriber was deallocated.
  @MainActor
  @inlinable
  func deliverHeld(_ status: SubscriptionStatus) {
    guard let subscriber = _subscriber else {
      _held = Held()
      status.markGone()
      return
    }
    _held.deliver { subscriber.newState(state: $0) }
  }
}

/// The last step of a closure subscription: holds the closure and the values the steps selected
/// until the closure receives them.
@usableFromInline
final class ClosureReceiver<Held: HeldStorage> {
  @usableFromInline let _receive: @MainActor (Held.Value) -> Void
  // Unchecked, as `SubscriberReceiver._held`.
  @exclusivity(unchecked) @usableFromInline var _held = Held()

  @usableFromInline
  init(receive: @escaping @MainActor (Held.Value) -> Void) {
    _receive = receive
  }

  /// Keeps `value` for ``deliverHeld()``.
  @MainActor
  @inlinable
  func hold(_ value: Held.Value) {
    _held.hold(value)
  }

  /// Hands the held values to the closure.
  @MainActor
  @inlinable
  func deliverHeld() {
    _held.deliver { _receive($0) }
  }
}

// MARK: A closure subscription's steps, and the first of steps built for any subscription

extension SubscriptionEntry {
  /// Has the steps built from steps that run in this entry deliver through their receiver's
  /// `deliver`, once the receiver is attached to them.
  @MainActor
  @inlinable
  func deliverThroughReceiver(_ deliver: @escaping (SubscriptionStatus) -> Void) {
    guard let steps = _steps, type(of: steps) == StepsCall<State>.self else { return }
    knownObject(steps, as: StepsCall<State>.self)._deliverHeld = deliver
  }
}

extension SelectingEntry {
  /// A closure subscription's entry, whose steps will be ``ReceivingSteps``, or built from steps.
  @inlinable
  convenience init() {
    self.init(owner: nil, deliver: { SelectingEntry.deliver(to: $0) })
  }

  /// Hands the value selected last to the closure, or for a subscription built from steps, has
  /// their receiver hand over what it holds; a closure subscription's delivery.
  @MainActor
  @inlinable
  static func deliver(to entry: SubscriptionEntry<State>) {
    let entry = knownObject(entry, as: SelectingEntry.self)
    guard let steps = entry._stepsAddress else { return }
    if let value = entry._previous.slotValue {
      // The closure, retained: it may end the subscription, which drops the steps.
      let receive = withObject(at: steps, as: EntrySteps<State>.self) {
        type(of: $0) == ReceivingSteps<State, Previous>.self
          ? knownObject($0, as: ReceivingSteps<State, Previous>.self)._receive : nil
      }
      receive?(value)
    } else {
      StepsCall.deliverHeld(to: entry)
    }
  }
}

/// A closure subscription's ``SelectingSteps``, with the closure that receives the values.
///
/// The entry's delivery captures them, unlike its first phase, which borrows them: the closure may
/// cancel the subscription, which drops them, while it runs.
@usableFromInline
final class ReceivingSteps<State: Sendable, Previous: PreviousSlot>:
  SelectingSteps<State, Previous>
{
  @usableFromInline let _receive: @MainActor (Previous.Value) -> Void

  @usableFromInline
  init(
    select: @escaping (State) -> Previous.Value,
    isRepeat: @escaping (Previous.Value, Previous.Value) -> Bool,
    receive: @escaping @MainActor (Previous.Value) -> Void,
    run: @escaping (EntrySteps<State>, SubscriptionEntry<State>, inout State) -> Bool
  ) {
    _receive = receive
    super.init(select: select, isRepeat: isRepeat, run: run)
  }

  @inlinable
  convenience init(
    select: @escaping (State) -> Previous.Value,
    isRepeat: @escaping (Previous.Value, Previous.Value) -> Bool,
    receive: @escaping @MainActor (Previous.Value) -> Void
  ) {
    self.init(
      select: select, isRepeat: isRepeat, receive: receive, run: SelectingSteps<State, Previous>.run
    )
  }
}
