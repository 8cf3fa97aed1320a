// The tutorials' modules have no resources; the code that reads the bundled films finds this.
import Foundation

extension Bundle {
  static var module: Bundle { .main }
}
