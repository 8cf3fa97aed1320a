import StatecraftAtomics
import StatecraftPrimitives

/// The checks debug builds make of how an app uses its stores, each reported once through
/// ``StatecraftDiagnostics/warningHandler`` with the action or type at fault and what to do.
///
/// Release builds make none of them. Every check is on by default in debug builds; switch one off,
/// or move its limit, for the whole process at app start:
///
/// ```swift
/// #if DEBUG
///   StatecraftDiagnostics.developmentChecks.slowReduction = .milliseconds(33)  // 30 Hz
///   StatecraftDiagnostics.developmentChecks.actionStormLimit = nil               // off
/// #endif
/// ```
///
/// - A **slow reduction**: a reducer that runs longer than a frame on the main queue, where the
///   UI waits for it.
/// - An **action storm**: one action type dispatched more often than the limit within a second,
///   usually a subscriber that dispatches on every state it receives.
/// - A **reference in the state**: an instance of a class where a value was meant, found by
///   reflecting on the first state of each state type. Copies of the state share it, so a change
///   to it changes states already delivered, and time travel and test diffs miss the change.
/// - An **action that cannot be recorded**: with an `ActionRecorder` installed (StatecraftTools),
///   an action whose type its registry cannot encode.
public struct DevelopmentChecks: Sendable, Equatable {
  /// The longest a reduction may take on the main queue before it is reported; `nil` switches
  /// the check off.
  ///
  /// The time covers the reducer, and a lock the reduction waited for.
  /// - Complexity: O(1).
  public var slowReduction: Interval?

  /// The most actions of one type a store may reduce within a second before they are reported;
  /// `nil` switches the check off.
  /// - Complexity: O(1).
  public var actionStormLimit: Int?

  /// Whether the first state of each state type is searched for instances of classes.
  /// - Complexity: O(1).
  public var referencesInState: Bool

  /// Whether an action recorder reports the action types it cannot encode.
  /// - Complexity: O(1).
  public var unrecordableActions: Bool

  /// Creates a set of checks; the defaults are what debug builds check.
  ///
  /// - Parameters:
  ///   - slowReduction: The longest a reduction may take on the main queue: a frame at 60 Hz.
  ///   - actionStormLimit: The most actions of one type a second.
  ///   - referencesInState: Whether to look for class instances in the state.
  ///   - unrecordableActions: Whether a recorder reports actions it cannot encode.
  /// - Complexity: O(1).
  public init(
    slowReduction: Interval? = .milliseconds(16),
    actionStormLimit: Int? = 1_000,
    referencesInState: Bool = true,
    unrecordableActions: Bool = true
  ) {
    self.slowReduction = slowReduction
    self.actionStormLimit = actionStormLimit
    self.referencesInState = referencesInState
    self.unrecordableActions = unrecordableActions
  }

  /// No checks.
  /// - Complexity: O(1).
  public static let none = DevelopmentChecks(
    slowReduction: nil, actionStormLimit: nil, referencesInState: false,
    unrecordableActions: false)
}

extension StatecraftDiagnostics {
  /// The checks debug builds make, for every store of the process.
  ///
  /// Set it at app start, before the stores reduce; a change applies to the actions reduced
  /// after it. Release builds check nothing, whatever it says.
  /// - Complexity: O(1).
  public static var developmentChecks: DevelopmentChecks {
    get {
      let flags = checkFlags.withLock { $0 }
      let slow = sc_checks_slow_reduction()
      let storm = sc_checks_storm_limit()
      return DevelopmentChecks(
        slowReduction: slow == 0 ? nil : Interval(nanoseconds: slow),
        actionStormLimit: storm == 0 ? nil : Int(clamping: storm),
        referencesInState: flags.references,
        unrecordableActions: flags.unrecordable)
    }
    set {
      checkFlags.withLock {
        $0 = (newValue.referencesInState, newValue.unrecordableActions)
      }
      sc_checks_set(
        newValue.slowReduction.map { Swift.max($0.nanoseconds, 1) } ?? 0,
        newValue.actionStormLimit.map { UInt64(Swift.max($0, 1)) } ?? 0)
    }
  }

  /// Whether debug builds report the action types an action recorder cannot encode; for
  /// StatecraftTools.
  package static var reportsUnrecordableActions: Bool {
    #if DEBUG
      checkFlags.withLock { $0.unrecordable }
    #else
      false
    #endif
  }

  /// Reports `message` as a warning; for the development checks of StatecraftTools.
  package static func report(_ message: String) {
    warn(message)
  }

  /// Reports, in debug builds and once per state type, an instance of a class in `state`.
  ///
  /// Called when a store is created, with its first state.
  @usableFromInline
  static func checkReferences<State>(in state: State) {
    #if DEBUG
      guard checkFlags.withLock({ $0.references }),
        checkedStateTypes.withLock({ $0.insert(ObjectIdentifier(State.self)).inserted }),
        let (path, type) = firstReference(in: state)
      else { return }
      warn(
        """
        \(State.self) holds an instance of the class \(type) at \(path.isEmpty ? "its root" : path). \
        Every copy of the state shares it, so a change to it changes states already delivered, \
        and time travel and test diffs miss the change. Make \(type) a struct, or keep it out of \
        the state (a service belongs in the thunk environment); if it is the storage of a type \
        that copies it before each change, nothing is wrong. \
        StatecraftDiagnostics.developmentChecks.referencesInState = false switches this check off.
        """)
    #endif
  }

  /// The path and the type of the first instance of a class in `value`, searched breadth first
  /// through at most `budget` values, and the first `perCollection` elements of each collection.
  ///
  /// - Complexity: O(`budget`).
  static func firstReference(
    in value: Any, budget: Int = 10_000, perCollection: Int = 16
  ) -> (path: String, type: Any.Type)? {
    var queue: [(value: Any, path: String)] = [(value, "")]
    var next = 0
    while next < queue.count, next < budget {
      let (value, path) = queue[next]
      next += 1
      let mirror = Mirror(reflecting: value)
      if mirror.displayStyle == .class { return (path, type(of: value)) }
      let isCollection = [.collection, .dictionary, .set].contains(mirror.displayStyle)
      for (index, child) in mirror.children.enumerated() {
        if isCollection, index == perCollection { break }
        let label = child.label ?? "\(index)"
        let childPath =
          isCollection ? "\(path)[\(index)]" : path.isEmpty ? label : "\(path).\(label)"
        queue.append((child.value, childPath))
      }
    }
    return nil
  }
}

/// Whether the reference and recording checks are on; the other two are C variables.
private let checkFlags = Locked((references: true, unrecordable: true))

/// The state types searched already: each is searched once per process.
private let checkedStateTypes = Locked(Set<ObjectIdentifier>())
