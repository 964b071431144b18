print("blockerctl")
